// node-oracle.js: answers pathguard flavour questions with Node's own path module.
// Reads JSON lines {"flavor","cwd","driveCwd":{"C:":"…"},"op","args"} on stdin and writes
// one JSON line {"got":"…"} per input. Used by the pathguard tests when node (>= 20) is
// installed; run `node testdata/node-oracle.js < cases.jsonl` by hand to regenerate vectors.
'use strict';
const path = require('path');
const readline = require('readline');
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  if (!line.trim()) return;
  const c = JSON.parse(line);
  const p = c.flavor === 'windows' ? path.win32 : path.posix;
  process.cwd = () => c.cwd;
  for (const k of Object.keys(process.env)) if (k.startsWith('=')) delete process.env[k];
  for (const [d, v] of Object.entries(c.driveCwd || {})) process.env['=' + d] = v;
  let got;
  switch (c.op) {
    case 'isAbs': got = String(p.isAbsolute(c.args[0])); break;
    case 'normalize': got = p.normalize(c.args[0]); break;
    case 'join': got = p.join(...c.args); break;
    case 'resolve': got = p.resolve(...c.args); break;
    default: got = 'unknown op ' + c.op;
  }
  process.stdout.write(JSON.stringify({ got }) + '\n');
});
