#!/usr/bin/env node
// Where binding.gyp finds libpacksign (build time only; the addon itself
// never reads the environment and opens no path of its own: the dynamic
// loader finds libpacksign.so.1 by its soname).
//
//   node scripts/locate.js includedir|libdir|ldflags
//
// In this order:
//   1. PACKSIGN_INCLUDEDIR and PACKSIGN_LIBDIR, both set (make check
//      builds the addon against build/ and build/asan/ this way);
//   2. pkg-config's packsign (an installed library, PKG_CONFIG_PATH
//      honoured);
//   3. the repository this package sits in (bindings/node of a work tree
//      where `make` has built build/libpacksign.so.1).
// ldflags is an rpath to the library directory, unless the dynamic loader
// already searches it (a directory of `ldconfig -v -N -X`, compared by
// real path: /usr/lib and /lib are one directory on a merged /usr).
// PACKSIGN_RPATH, when set, is the rpath instead ('' for none): a
// distribution building against a staged library (DESTDIR) names the
// directory the library will be installed in, not the staging one.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

function pkgConfig(variable) {
  try {
    return execFileSync('pkg-config', ['--variable=' + variable, 'packsign'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

function locate() {
  const env = process.env;
  if (env.PACKSIGN_INCLUDEDIR && env.PACKSIGN_LIBDIR) {
    return { includedir: env.PACKSIGN_INCLUDEDIR, libdir: env.PACKSIGN_LIBDIR,
      from: 'PACKSIGN_INCLUDEDIR and PACKSIGN_LIBDIR' };
  }
  const inc = pkgConfig('includedir');
  const lib = pkgConfig('libdir');
  if (inc && lib) {
    return { includedir: inc, libdir: lib, from: 'pkg-config packsign' };
  }
  const repo = path.resolve(__dirname, '..', '..', '..');
  const header = path.join(repo, 'include', 'packsign.h');
  const built = path.join(repo, 'build', 'libpacksign.so');
  if (fs.existsSync(header) && fs.existsSync(built)) {
    return { includedir: path.dirname(header), libdir: path.dirname(built),
      from: 'the repository\'s build/' };
  }
  return null;
}

function loaderDirs() {
  for (const ldconfig of ['ldconfig', '/sbin/ldconfig', '/usr/sbin/ldconfig']) {
    try {
      const out = execFileSync(ldconfig, ['-v', '-N', '-X'],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      return out.split('\n').filter((l) => /^\//.test(l))
        .map((l) => l.replace(/:.*$/, ''));
    } catch {
      // the next name
    }
  }
  return ['/lib', '/usr/lib'];
}

function real(dir) {
  try {
    return fs.realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

function main(what) {
  const found = locate();
  if (found === null) {
    process.stderr.write('packsign: libpacksign not found: install it ' +
      '(make install; pkg-config packsign), build it in the repository ' +
      '(make, then npm install ./bindings/node), or set ' +
      'PACKSIGN_INCLUDEDIR and PACKSIGN_LIBDIR\n');
    process.exit(1);
  }
  if (what === 'includedir' || what === 'libdir') {
    process.stdout.write(path.resolve(found[what]) + '\n');
  } else if (what === 'ldflags' && process.env.PACKSIGN_RPATH !== undefined) {
    const r = process.env.PACKSIGN_RPATH;
    process.stdout.write(r === '' ? '\n' :
      `-Wl,--enable-new-dtags -Wl,-rpath,${r}\n`);
  } else if (what === 'ldflags') {
    const lib = real(found.libdir);
    const system = loaderDirs().some((d) => real(d) === lib);
    process.stdout.write(system ? '\n' :
      `-Wl,--enable-new-dtags -Wl,-rpath,${lib}\n`);
  } else if (what === 'from') {
    process.stdout.write(found.from + '\n');
  } else {
    process.stderr.write('usage: locate.js includedir|libdir|ldflags|from\n');
    process.exit(2);
  }
}

main(process.argv[2]);
