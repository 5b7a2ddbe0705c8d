#!/usr/bin/env node
// node build-errors.mjs -- componentize-js BUNDLE.js [ARGS...]
//
// Runs componentize-js and, when it fails, reduces its report (a Node stack, the wizer
// path, the bundle's positions) to what the author needs: the source file, line, column
// and message, with the line itself. Positions in the bundle are mapped back through
// BUNDLE.js.map (rolldown --sourcemap) to the TypeScript the author wrote. A successful
// build passes through untouched. Exit status is the tool's.
import { spawnSync } from "node:child_process";
import { readFileSync, existsSync, writeSync } from "node:fs";
import { SourceMap } from "node:module";
import { basename, dirname, resolve, relative } from "node:path";

const args = process.argv.slice(2);
const at = args.indexOf("--");
const command = at >= 0 ? args.slice(at + 1) : args;
if (command.length === 0) {
  console.error("usage: node build-errors.mjs -- componentize-js BUNDLE.js [ARGS...]");
  process.exit(64);
}
const run = spawnSync(command[0], command.slice(1), {
  stdio: ["inherit", "inherit", "pipe"],
  encoding: "utf8",
  shell: process.platform === "win32",
});
if (run.error) {
  console.error(`cannot run ${command[0]}: ${run.error.message}`);
  process.exit(127);
}
if (run.status === 0) {
  writeSync(2, run.stderr);
  process.exit(0);
}
// writeSync: process.exit does not wait for a piped stderr to drain.
writeSync(2, reduce(run.stderr, command.find((a) => a.endsWith(".js"))) + "\n");
process.exit(run.status ?? 1);

/** The author's view of a componentize-js failure. */
function reduce(text, bundle) {
  const lines = text.split(/\r?\n/);
  // "dist/hook.js:4:8 Error: message": an exception while the script first ran.
  const thrown = bundle && lines
    .map((line) => line.match(/^(\S+?):(\d+):(\d+) (.*)$/))
    .find((m) => m && basename(m[1]) === basename(bundle));
  if (thrown) {
    const [, , line, column, message] = thrown;
    return located(bundle, Number(line), Number(column), message);
  }
  // Anything else: the tool's own message, without Node's stack and footer.
  const start = lines.findIndex((l) => /^(\w*Error|error)\b/.test(l));
  const body = (start >= 0 ? lines.slice(start) : lines)
    .filter((l) => !/^\s+at /.test(l) && !/^Node\.js v/.test(l) && l.trim() !== "")
    .map((l) => l.replace(/ \(wizer \([^)]*\)\)/, ""));
  return body.slice(0, 12).join("\n") || text;
}

function located(bundle, line, column, message) {
  const map = `${bundle}.map`;
  if (existsSync(map)) {
    const payload = JSON.parse(readFileSync(map, "utf8"));
    const entry = new SourceMap(payload).findEntry(line - 1, column - 1);
    if (entry && entry.originalSource !== undefined) {
      const source = resolve(dirname(map), entry.originalSource);
      const index = payload.sources.findIndex((s) => resolve(dirname(map), s) === source);
      const content = index >= 0 && payload.sourcesContent?.[index];
      const text = content ?? (existsSync(source) ? readFileSync(source, "utf8") : "");
      const shown = text.split(/\r?\n/)[entry.originalLine] ?? "";
      return `${relative(process.cwd(), source)}:${entry.originalLine + 1}:${entry.originalColumn + 1}: ${message}\n    ${shown.trim()}`;
    }
  }
  const shown = existsSync(bundle) ? readFileSync(bundle, "utf8").split(/\r?\n/)[line - 1] ?? "" : "";
  return `${bundle}:${line}:${column}: ${message}\n    ${shown.trim()}`;
}
