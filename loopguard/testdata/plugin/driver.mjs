// Differential driver for loopguard's property 12: runs event sequences through the
// tool-loop-guard hook of the published oh-my-opencode-slim plugin and prints what it did.
//
// Usage: node driver.mjs <path to the oh-my-opencode-slim package directory>
// Input: one JSON array of events per line. Output: one JSON array of outcomes per line.
// A line {"parse":[texts]} instead gets [[task id, state], …] from the hook's own readers
// ("" where they find nothing).
// Events: {"op":"before"|"after","session","call","tool","args"(JSON text, "" = absent),
// "output" (string) | "value" (JSON text)} | {"op":"message","session","message"} |
// {"op":"end_turn","session"} | {"op":"end_session","session"}.
// Outcomes: "refused", "allowed", "loop" / "wait" (that marker was appended), "none".
//
// The hook is not exported by the package, so the driver takes its section out of the
// package's bundle (dist/index.js) and evaluates it with a silent logger.
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { createInterface } from "node:readline";
import { join } from "node:path";

const pkg = process.argv[2];
const bundle = readFileSync(join(pkg, "dist", "index.js"), "utf8");
const start = bundle.indexOf("// src/hooks/tool-loop-guard/hook.ts");
const end = bundle.indexOf("\n// src/", start + 10);
if (start < 0 || end < 0) {
  console.error("tool-loop-guard section not found in the bundle");
  process.exit(3);
}
const section = bundle.slice(start, end);
const make = new Function(
  "log", "createHash", "createHash2", "createHash3", "createHash4", "createHash5",
  section + "\nreturn { createToolLoopGuardHook, LOOP_GUARD_MARKER, WAIT_GUARD_MARKER, taskIDFromOutput, lifecycleStateFromOutput };",
);
const silent = () => {};
const mod = make(silent, createHash, createHash, createHash, createHash, createHash);

async function runSequence(events) {
  const hook = mod.createToolLoopGuardHook();
  const out = [];
  for (const ev of events) {
    const input = { tool: ev.tool, sessionID: ev.session };
    if (ev.call) input.callID = ev.call;
    switch (ev.op) {
      case "before": {
        const o = {};
        if (ev.args !== "") o.args = JSON.parse(ev.args);
        try {
          await hook["tool.execute.before"](input, o);
          out.push("allowed");
        } catch {
          out.push("refused");
        }
        break;
      }
      case "after": {
        const given = ev.value !== undefined ? JSON.parse(ev.value) : ev.output;
        const o = { output: given };
        await hook["tool.execute.after"](input, o);
        if (typeof o.output === "string" && o.output !== given) {
          const added = o.output.slice(given.length);
          out.push(added.includes(mod.WAIT_GUARD_MARKER) ? "wait" : "loop");
        } else {
          out.push("none");
        }
        break;
      }
      case "message":
        hook.observeNewUserMessage(ev.session, ev.message);
        out.push("none");
        break;
      case "end_turn":
        hook.resetTurn(ev.session);
        out.push("none");
        break;
      case "end_session":
        hook.resetSession(ev.session);
        out.push("none");
        break;
      default:
        throw new Error("unknown op " + ev.op);
    }
  }
  return out;
}

const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  if (line.trim() === "") continue;
  const msg = JSON.parse(line);
  if (msg !== null && !Array.isArray(msg) && Array.isArray(msg.parse)) {
    const res = msg.parse.map((text) => [mod.taskIDFromOutput(text) ?? "", mod.lifecycleStateFromOutput(text) ?? ""]);
    process.stdout.write(JSON.stringify(res) + "\n");
    continue;
  }
  process.stdout.write(JSON.stringify(await runSequence(msg)) + "\n");
}
