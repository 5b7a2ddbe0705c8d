#!/usr/bin/env node
// Packs hookhost's npm packages into tarballs (`npm pack`), from this folder and built
// binaries; publishes nothing.
//
//   node npm/pack.mjs --out DIR main
//       the main package (npm/hookhost): the `hookhost` command that runs the binary of
//       the platform's package;
//   node npm/pack.mjs --out DIR platform PLATFORM BIN_DIR
//       @hookhost/PLATFORM (a row of npm/targets.json) with the binaries of BIN_DIR
//       (`hookhost`, `hookhost-hook`, `hookhost-envelope`, each with the platform's
//       suffix), which must be there and must say the version this package has.
//
// One version everywhere: the workspace's (Cargo.toml), the main package's, each of its
// optionalDependencies and `hookhost --version` (where the binary runs here). A mismatch
// stops the pack.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);

function die(message) {
  process.stderr.write(`npm/pack.mjs: ${message}\n`);
  process.exit(1);
}

/** The workspace's version, from `[workspace.package]` in Cargo.toml. */
function cargoVersion() {
  const text = fs.readFileSync(path.join(root, 'Cargo.toml'), 'utf8');
  const section = text.split('[workspace.package]')[1] ?? '';
  const found = section.match(/^version\s*=\s*"([^"]+)"/m);
  if (!found) die('Cargo.toml has no [workspace.package] version');
  return found[1];
}

const targets = JSON.parse(fs.readFileSync(path.join(here, 'targets.json'), 'utf8'));
const main = JSON.parse(fs.readFileSync(path.join(here, 'hookhost', 'package.json'), 'utf8'));
const version = cargoVersion();
if (main.version !== version) {
  die(`npm/hookhost/package.json says ${main.version}, Cargo.toml ${version}`);
}
for (const row of targets.platforms) {
  const wanted = main.optionalDependencies?.[`@hookhost/${row.platform}`];
  if (wanted !== version) {
    die(`npm/hookhost/package.json names @hookhost/${row.platform} at ${wanted}, not ${version}`);
  }
}

const args = process.argv.slice(2);
if (args[0] !== '--out' || !args[1]) die('usage: --out DIR (main | platform PLATFORM BIN_DIR)');
const out = path.resolve(args[1]);
fs.mkdirSync(out, { recursive: true });
const [kind, ...rest] = args.slice(2);

/** A fresh staging folder for one package. */
function stage(name) {
  const dir = path.join(out, 'stage', name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** `npm pack` of `dir` into `out`; the tarball's path. */
function pack(dir) {
  const printed = execFileSync('npm', ['pack', '--json', '--pack-destination', out], {
    cwd: dir,
    encoding: 'utf8',
  });
  const [info] = JSON.parse(printed);
  return path.join(out, info.filename);
}

if (kind === 'main') {
  const dir = stage('hookhost');
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.copyFileSync(path.join(here, 'hookhost', 'package.json'), path.join(dir, 'package.json'));
  fs.copyFileSync(path.join(here, 'hookhost', 'README.md'), path.join(dir, 'README.md'));
  fs.copyFileSync(path.join(here, 'hookhost', 'bin', 'hookhost.js'), path.join(dir, 'bin', 'hookhost.js'));
  fs.chmodSync(path.join(dir, 'bin', 'hookhost.js'), 0o755);
  fs.copyFileSync(path.join(root, 'LICENSE'), path.join(dir, 'LICENSE'));
  console.log(pack(dir));
} else if (kind === 'platform') {
  const [platform, binDir] = rest;
  const row = targets.platforms.find((p) => p.platform === platform);
  if (!row) die(`no platform ${platform} in npm/targets.json`);
  if (!binDir) die('platform needs the folder of the built binaries');
  const dir = stage(platform);
  fs.mkdirSync(path.join(dir, 'bin'));
  for (const binary of targets.binaries) {
    const file = `${binary}${row.exe}`;
    const from = path.join(binDir, file);
    const meta = fs.lstatSync(from, { throwIfNoEntry: false });
    if (!meta?.isFile()) die(`${from}: no built binary (a regular file) there`);
    fs.copyFileSync(from, path.join(dir, 'bin', file));
    fs.chmodSync(path.join(dir, 'bin', file), 0o755);
  }
  // Where the binary runs here, it must say this version.
  if (row.os === process.platform && row.cpu === process.arch) {
    const said = execFileSync(path.join(dir, 'bin', `hookhost${row.exe}`), ['--version'], {
      encoding: 'utf8',
    }).trim();
    if (said !== `hookhost ${version}`) die(`the binary says "${said}", not "hookhost ${version}"`);
  }
  const manifest = {
    name: `@hookhost/${platform}`,
    version,
    description: `hookhost's prebuilt binaries for ${platform} (${row.target}); installed by the hookhost package`,
    license: main.license,
    homepage: main.homepage,
    repository: main.repository,
    os: [row.os],
    cpu: [row.cpu],
    files: ['bin/'],
    preferUnplugged: true,
  };
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  fs.copyFileSync(path.join(root, 'LICENSE'), path.join(dir, 'LICENSE'));
  console.log(pack(dir));
} else {
  die('usage: --out DIR (main | platform PLATFORM BIN_DIR)');
}
