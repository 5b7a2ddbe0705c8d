#!/usr/bin/env node
// The `hookhost` command npm puts on PATH: it finds the prebuilt binary in this platform's
// package (@hookhost/<platform>-<arch>, one of this package's optionalDependencies, which
// npm installs only where `os` and `cpu` match) and runs it with the same arguments,
// standard streams and exit status. Nothing is downloaded: no install script runs.
//
// The hook commands `hookhost ... install` writes name that binary by its absolute path
// (not this script, not PATH), so an agent's hook call never starts Node.
'use strict';

const { spawnSync } = require('node:child_process');
const path = require('node:path');

const platform = `${process.platform}-${process.arch}`;
const name = `@hookhost/${platform}`;
const manifest = require('../package.json');

function fail(message) {
  process.stderr.write(`hookhost: ${message}\n`);
  process.exit(1);
}

if (!Object.hasOwn(manifest.optionalDependencies || {}, name)) {
  const known = Object.keys(manifest.optionalDependencies || {}).join(', ');
  fail(`no prebuilt binary for ${platform} (there are: ${known}); build it from source: cargo install hookhost`);
}

let folder;
try {
  folder = path.dirname(require.resolve(`${name}/package.json`));
} catch {
  fail(`${name} is not installed beside hookhost: npm skips optional dependencies with --omit=optional or --no-optional; install again without it`);
}

const installed = require(`${name}/package.json`).version;
if (installed !== manifest.version) {
  fail(`${name} is ${installed}, this package is ${manifest.version}: install both at one version`);
}

const binary = path.join(folder, 'bin', process.platform === 'win32' ? 'hookhost.exe' : 'hookhost');
const run = spawnSync(binary, process.argv.slice(2), { stdio: 'inherit' });
if (run.error) {
  fail(`cannot run ${binary}: ${run.error.message}`);
}
if (run.signal) {
  // The same death for the caller: raise the signal on this process.
  process.kill(process.pid, run.signal);
}
process.exit(run.status === null ? 1 : run.status);
