// opencode-oracle.mjs runs OpenCode's own string-replacement function on the edits of the
// corpus, for TestEditCorpus (patch/edit_corpus_external_test.go). No OpenCode code is kept
// in this repository: the function is taken at run time out of the published source named
// on the command line, which is either
//
//   - packages/opencode/src/tool/edit.ts of an OpenCode checkout (TypeScript), or
//   - the opencode executable of the opencode-<os>-<arch> npm package (a Bun build that
//     carries its JavaScript bundle as text; examples/realhosts/testdata/hosts installs
//     the pinned one).
//
// How: the source (for the executable, the one bundle chunk that holds the message
// "Could not find oldString in the file") is parsed with the TypeScript compiler; the
// top-level function whose body holds that message is OpenCode's replace(content, old,
// new, replaceAll); it and every top-level declaration it reaches through its free names
// (the replacers, the similarity thresholds, levenshtein, ...) are printed in source order,
// transpiled to JavaScript and imported. Reaching an import is an error: the replace
// function must stand on its own, as it does in every OpenCode release we know.
//
// Input on stdin: a JSON array of {"content","old","new"}. Output on stdout: a JSON array,
// one {"ok":true,"out":"..."} or {"ok":false,"error":"..."} per edit, in order. An Error
// thrown by replace is a refusal (ok false); any other failure (a ReferenceError from a
// declaration the extraction missed, a bad source) ends the run with exit status 2.
// stderr says what was loaded.
//
// Usage: node opencode-oracle.mjs PATH < edits.json   (npm ci --prefix <this folder> first)

import fs from "node:fs"
import crypto from "node:crypto"
import ts from "typescript"

const MARKER = "Could not find oldString in the file"

function fail(msg) {
  process.stderr.write("opencode-oracle: " + msg + "\n")
  process.exit(2)
}

// sourceText returns the TypeScript or JavaScript text to search, and how it was found.
function sourceText(path) {
  const buf = fs.readFileSync(path)
  const at = buf.indexOf(MARKER)
  if (at < 0) fail(`${path} does not hold OpenCode's replace function (no "${MARKER}")`)
  if (buf.indexOf(0) < 0) return { text: buf.toString("utf8"), kind: "TypeScript source", ts: true }
  // An executable: the bundle chunk around the message starts at its "// @bun" banner and
  // ends at the NUL that closes the string Bun stores it in.
  const start = buf.lastIndexOf("// @bun", at)
  const end = buf.indexOf(0, at)
  if (start < 0 || end < 0) fail(`${path}: no Bun bundle chunk around the replace function`)
  return { text: buf.subarray(start, end).toString("utf8"), kind: `bundle chunk at byte ${start} (${end - start} bytes)`, ts: false }
}

// bindingNames adds the names a binding (identifier or destructuring pattern) declares.
function bindingNames(name, into) {
  if (!name) return
  if (ts.isIdentifier(name)) into.add(name.text)
  else if (ts.isObjectBindingPattern(name) || ts.isArrayBindingPattern(name))
    for (const el of name.elements) if (!ts.isOmittedExpression(el)) bindingNames(el.name, into)
}

// localNames is every name declared inside fn (its parameters, its own name, and every
// declaration in its body, nested blocks included, nested functions' own names included
// but not their insides): an over-approximation of its scope that is safe because a
// missed top-level dependency fails loudly at run time.
function localNames(fn) {
  const names = new Set()
  if (fn.name && ts.isIdentifier(fn.name)) names.add(fn.name.text)
  for (const p of fn.parameters ?? []) bindingNames(p.name, names)
  const visit = (n) => {
    if (ts.isVariableDeclaration(n) || ts.isBindingElement(n)) bindingNames(n.name, names)
    if (ts.isCatchClause(n) && n.variableDeclaration) bindingNames(n.variableDeclaration.name, names)
    if ((ts.isFunctionDeclaration(n) || ts.isClassDeclaration(n)) && n.name) names.add(n.name.text)
    if (ts.isFunctionLike(n)) return
    ts.forEachChild(n, visit)
  }
  if (fn.body) ts.forEachChild(fn.body, visit)
  return names
}

// isReference reports whether identifier id reads a variable (not a property name, a
// declaration's name, a label or a type).
function isReference(id) {
  const p = id.parent
  if (!p) return false
  if (ts.isPropertyAccessExpression(p) && p.name === id) return false
  if ((ts.isPropertyAssignment(p) || ts.isMethodDeclaration(p) || ts.isPropertyDeclaration(p) || ts.isGetAccessor(p) || ts.isSetAccessor(p)) && p.name === id) return false
  if (ts.isBindingElement(p) && p.propertyName === id) return false
  if ((ts.isVariableDeclaration(p) || ts.isParameter(p) || ts.isBindingElement(p) || ts.isFunctionDeclaration(p) || ts.isFunctionExpression(p) || ts.isClassDeclaration(p)) && p.name === id) return false
  if (ts.isLabeledStatement(p) || ts.isBreakOrContinueStatement(p)) return false
  return true
}

// freeNames is the set of names node reads that no enclosing function inside it declares.
function freeNames(node) {
  const free = new Set()
  const walk = (n, scopes) => {
    if (ts.isTypeNode(n) || ts.isTypeAliasDeclaration(n) || ts.isInterfaceDeclaration(n)) return
    if (ts.isFunctionLike(n)) scopes = [...scopes, localNames(n)]
    if (ts.isIdentifier(n) && isReference(n) && !scopes.some((s) => s.has(n.text))) free.add(n.text)
    ts.forEachChild(n, (c) => walk(c, scopes))
  }
  walk(node, [])
  return free
}

const { text, kind, ts: isTS } = sourceText(process.argv[2] ?? fail("usage: node opencode-oracle.mjs PATH-TO-edit.ts-OR-opencode < edits.json"))
const sf = ts.createSourceFile(isTS ? "edit.ts" : "chunk.js", text, ts.ScriptTarget.Latest, true, isTS ? ts.ScriptKind.TS : ts.ScriptKind.JS)

// The top-level declarations, by name: the text to print for each and its position.
const decls = new Map()
const imported = new Set()
const strip = (s) => s.replace(/^export\s+(default\s+)?/, "")
for (const st of sf.statements) {
  if (ts.isImportDeclaration(st) || ts.isImportEqualsDeclaration(st)) {
    const c = st.importClause
    if (c?.name) imported.add(c.name.text)
    const nb = c?.namedBindings
    if (nb && ts.isNamespaceImport(nb)) imported.add(nb.name.text)
    if (nb && ts.isNamedImports(nb)) for (const e of nb.elements) imported.add(e.name.text)
    if (ts.isImportEqualsDeclaration(st)) imported.add(st.name.text)
  } else if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st)) && st.name) {
    decls.set(st.name.text, { node: st, pos: st.getStart(), text: strip(st.getText()) })
  } else if (ts.isVariableStatement(st)) {
    const flags = st.declarationList.flags
    const word = flags & ts.NodeFlags.Const ? "const" : flags & ts.NodeFlags.Let ? "let" : "var"
    for (const d of st.declarationList.declarations)
      if (ts.isIdentifier(d.name)) decls.set(d.name.text, { node: d, pos: d.getStart(), text: `${word} ${d.getText()};` })
  }
}

const roots = [...decls.entries()].filter(([, d]) => {
  const fn = ts.isVariableDeclaration(d.node) ? d.node.initializer : d.node
  return fn && ts.isFunctionLike(fn) && d.text.includes(MARKER)
})
if (roots.length !== 1) fail(`${roots.length} top-level functions hold "${MARKER}", want 1`)
const root = roots[0][0]

// The closure of root over free names that name top-level declarations.
const taken = new Set([root])
const queue = [root]
while (queue.length) {
  for (const name of freeNames(decls.get(queue.shift()).node)) {
    if (taken.has(name)) continue
    if (imported.has(name)) fail(`replace (${root}) reaches the import ${name}: the extraction cannot stand it alone`)
    if (decls.has(name)) {
      taken.add(name)
      queue.push(name)
    }
  }
}
const picked = [...taken].map((n) => decls.get(n)).sort((a, b) => a.pos - b.pos)
const module = picked.map((d) => d.text).join("\n") + `\nexport default ${root};\n`
const js = ts.transpileModule(module, {
  compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
}).outputText
const replace = (await import("data:text/javascript;base64," + Buffer.from(js).toString("base64"))).default

const sha = crypto.createHash("sha256").update(fs.readFileSync(process.argv[2])).digest("hex")
process.stderr.write(
  `opencode-oracle: ${process.argv[2]} (sha256 ${sha.slice(0, 16)}…, ${kind}): replace is ${root}, with ${[...taken].filter((n) => n !== root).sort().join(", ")}\n`,
)

const edits = JSON.parse(fs.readFileSync(0, "utf8"))
const results = edits.map(({ content, old, new: nw }) => {
  try {
    return { ok: true, out: replace(content, old, nw, false) }
  } catch (e) {
    if (e?.constructor !== Error) fail(`replace threw ${e?.name}: ${e?.message} (an extraction gap, not a refusal)`)
    return { ok: false, error: e.message }
  }
})
process.stdout.write(JSON.stringify(results))
