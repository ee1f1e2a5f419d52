#!/usr/bin/env node
// Builds the addon (npm's install script, and make check's): node-gyp
// rebuild against the running Node's own headers, so that nothing is
// downloaded.
//
// node-gyp: the one npm hands its scripts (npm_config_node_gyp), else
// node-gyp on PATH (Debian's package), else the copy inside npm.
// Headers: --nodedir as npm passes it (npm_config_nodedir), else the
// prefix of the running node when it holds include/node/node_api.h
// (/usr/bin/node: /usr/include/node, from NodeSource's nodejs or
// Debian's libnode-dev).  Where the library is: scripts/locate.js.
'use strict';
const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

function nodeGyp() {
  const env = process.env.npm_config_node_gyp;
  if (env && fs.existsSync(env)) {
    return [process.execPath, env];
  }
  const onPath = spawnSync('sh', ['-c', 'command -v node-gyp'],
    { encoding: 'utf8' });
  if (onPath.status === 0 && onPath.stdout.trim()) {
    return [onPath.stdout.trim()];
  }
  try {
    const npm = fs.realpathSync(execFileSync('sh', ['-c', 'command -v npm'],
      { encoding: 'utf8' }).trim());
    const bundled = path.join(path.dirname(npm), '..', 'node_modules',
      'node-gyp', 'bin', 'node-gyp.js');
    if (fs.existsSync(bundled)) {
      return [process.execPath, bundled];
    }
  } catch {
    // no npm
  }
  return null;
}

function nodeDir() {
  if (process.env.npm_config_nodedir) {
    return process.env.npm_config_nodedir;
  }
  const prefix = path.resolve(path.dirname(process.execPath), '..');
  if (fs.existsSync(path.join(prefix, 'include', 'node', 'node_api.h'))) {
    return prefix;
  }
  return null;
}

function main() {
  const gyp = nodeGyp();
  const dir = nodeDir();
  if (gyp === null) {
    process.stderr.write('packsign: node-gyp not found (npm brings one; ' +
      'on Debian: apt-get install node-gyp)\n');
    process.exit(1);
  }
  if (dir === null) {
    process.stderr.write(`packsign: no Node headers beside ${process.execPath} ` +
      '(include/node/node_api.h): install them (Debian: libnode-dev) or ' +
      'pass --nodedir=DIR\n');
    process.exit(1);
  }
  const args = [...gyp.slice(1), 'rebuild', `--nodedir=${dir}`];
  const r = spawnSync(gyp[0], args, { stdio: 'inherit',
    cwd: path.resolve(__dirname, '..') });
  process.exit(r.status === null ? 1 : r.status);
}

main();
