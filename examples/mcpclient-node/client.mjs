// Drives the compiled harnesskit MCP server over stdio with the official TypeScript MCP SDK,
// the same flow as the Go end-to-end test: list the tools, call each with a valid and an
// invalid input, then repeat one grep six times and watch the loop guard.
//
// Usage: node client.mjs /path/to/harnesskit
// Prints one line per check and exits 1 on the first failed one.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:http";

const bin = process.argv[2];
if (!bin) {
  console.error("usage: node client.mjs /path/to/harnesskit");
  process.exit(2);
}

const root = mkdtempSync(join(tmpdir(), "harnesskit-node-"));
mkdirSync(join(root, "src"));
writeFileSync(join(root, "src", "greet.go"), 'package main\n\nfunc Greet(name string) string {\n\treturn "Hello, " + name\n}\n');
writeFileSync(join(root, "README.md"), "# Sample\n");

let failed = false;
function check(name, ok, detail) {
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${ok ? "" : ": " + detail}`);
  if (!ok) failed = true;
}
const text = (r) => (r.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");

// A web page on loopback for webfetch, which the server may reach with --allow-private.
const web = createServer((req, res) => {
  res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
  res.end("<html><head><title>Local page</title></head><body><article><h1>Local page</h1>" +
    "<p>This page is served on the loopback interface for the TypeScript client check.</p></article></body></html>");
});
await new Promise((ok) => web.listen(0, "127.0.0.1", ok));
const pageURL = `http://127.0.0.1:${web.address().port}/page`;

const transport = new StdioClientTransport({ command: bin, args: ["mcp", "--root", root, "--allow-private"], stderr: "pipe" });
const client = new Client({ name: "harnesskit-node-check", version: "1.0.0" });
try {
  await client.connect(transport);

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort().join(",");
  // ast_grep_* are listed when the server has a backend for them (cgo, or ast-grep on PATH).
  const hasAst = names === "apply_patch,ast_grep_replace,ast_grep_search,edit,glob,grep,multi_edit,read,webfetch";
  check("list tools", hasAst || names === "apply_patch,edit,glob,grep,multi_edit,read,webfetch", names);
  const grepTool = tools.find((t) => t.name === "grep");
  check("grep is read-only", grepTool?.annotations?.readOnlyHint === true, JSON.stringify(grepTool?.annotations));

  const calls = [
    ["read valid", "read", { file_path: "src/greet.go" }, false, "     3\tfunc Greet(name string) string {"],
    ["read invalid", "read", { file_path: 42 }, true, "read: invalid arguments"],
    ["grep valid", "grep", { pattern: "Hello" }, false, "src/greet.go:\n  4: "],
    ["grep invalid", "grep", { pattern: "(" }, true, "is not a valid Go regular expression"],
    ["glob valid", "glob", { pattern: "**/*.go" }, false, "src/greet.go"],
    ["glob invalid", "glob", { pattern: "/etc/*" }, true, "put the directory to search in path"],
    ["apply_patch valid", "apply_patch", { patchText: "*** Begin Patch\n*** Add File: notes.txt\n+hi\n*** End Patch" }, false, "A notes.txt"],
    ["webfetch valid", "webfetch", { url: pageURL, format: "text" }, false, "served on the loopback interface"],
    ["webfetch invalid", "webfetch", { url: pageURL, format: "pdf" }, true, "webfetch: invalid arguments"],
    ["webfetch metadata refused", "webfetch", { url: "http://169.254.169.254/latest/meta-data/" }, true, "Blocked by network policy"],
    ["apply_patch invalid", "apply_patch", { patchText: "*** Begin Patch\n*** Add File: ../out.txt\n+x\n*** End Patch" }, true, "out.txt"],
  ];
  for (const [name, tool, args, isError, want] of calls) {
    const r = await client.callTool({ name: tool, arguments: args });
    check(name, Boolean(r.isError) === isError && text(r).includes(want), `isError=${r.isError} text=${JSON.stringify(text(r))}`);
  }
  check("patch written", readFileSync(join(root, "notes.txt"), "utf8") === "hi\n", "notes.txt differs");
  if (hasAst) {
    const sum = { pattern: '"Hello, " + $N', rewrite: '"Hi, " + $N', lang: "go" };
    const astCalls = [
      ["ast_grep_search valid", "ast_grep_search", { pattern: "return $A + $B", lang: "go" }, false, "src/greet.go:\n  4: return"],
      ["ast_grep_search invalid", "ast_grep_search", { pattern: "$$$X", lang: "go" }, true, "one complete piece of code"],
      ["ast_grep_replace dry run", "ast_grep_replace", sum, false, "[DRY RUN] 1 replacement in 1 file"],
      ["ast_grep_replace invalid", "ast_grep_replace", { pattern: "x", lang: "go" }, true, "rewrite (string, required)"],
      ["ast_grep_replace apply", "ast_grep_replace", { ...sum, dryRun: false }, false, "[APPLIED] 1 replacement in 1 file"],
    ];
    for (const [name, tool, args, isError, want] of astCalls) {
      const before = readFileSync(join(root, "src", "greet.go"), "utf8");
      const r = await client.callTool({ name: tool, arguments: args });
      check(name, Boolean(r.isError) === isError && text(r).includes(want), `isError=${r.isError} text=${JSON.stringify(text(r))}`);
      const after = readFileSync(join(root, "src", "greet.go"), "utf8");
      const wrote = name.endsWith("apply");
      check(`${name} ${wrote ? "writes" : "writes nothing"}`, wrote ? after.includes('"Hi, " + name') : after === before, after);
    }
  }

  const marker = "[REPEATED TOOL CALLS - STOP]";
  for (let i = 1; i <= 6; i++) {
    const r = await client.callTool({ name: "grep", arguments: { pattern: "Greet" } });
    const notice = text(r).includes(marker);
    const ok = i <= 2 ? !r.isError && !notice : i <= 5 ? !r.isError && notice : Boolean(r.isError);
    check(`loop call ${i}: isError=${Boolean(r.isError)} notice=${notice}`, ok, text(r));
  }
  await client.ping();
  check("server alive", true, "");
} catch (e) {
  check("session", false, e?.stack ?? String(e));
} finally {
  await client.close().catch(() => {});
  web.close();
  rmSync(root, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
