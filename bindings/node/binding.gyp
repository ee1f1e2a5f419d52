# The Node-API addon of packsign: C only, Node-API version 8, linked
# against libpacksign.so.1 (packsign.h only).  scripts/locate.js says where
# the header and the library are (PACKSIGN_INCLUDEDIR/PACKSIGN_LIBDIR,
# else pkg-config's packsign, else the repository's own build/) and
# whether the library directory needs an rpath (not when the dynamic
# loader searches it already).  PACKSIGN_SANITIZE=1 builds the addon with
# AddressSanitizer and UndefinedBehaviorSanitizer, for make check's run
# against build/asan.
{
  'variables': {
    'packsign_includedir%': '<!(node scripts/locate.js includedir)',
    'packsign_libdir%': '<!(node scripts/locate.js libdir)',
    'packsign_sanitize%': '<!(node -p "process.env.PACKSIGN_SANITIZE || 0")',
  },
  'targets': [{
    'target_name': 'packsign',
    'sources': [
      'src/addon.c', 'src/call.c', 'src/values.c', 'src/options.c',
      'src/results.c', 'src/verify.c', 'src/install.c', 'src/index.c',
      'src/sign.c', 'src/sigstore.c',
    ],
    'include_dirs': ['<(packsign_includedir)'],
    'defines': ['NAPI_VERSION=8', '_GNU_SOURCE'],
    'cflags!': ['-O3'],
    'cflags_c': [
      '-std=c11', '-O2', '-g', '-Wall', '-Wextra', '-Werror', '-Wformat=2',
      '-Wshadow', '-Wvla', '-Wpointer-arith', '-Wstrict-prototypes',
      '-Wmissing-prototypes', '-Wundef', '-Wno-unused-parameter',
      '-D_FORTIFY_SOURCE=2', '-fstack-protector-strong',
      '-fstack-clash-protection', '-fcf-protection',
    ],
    'ldflags': [
      '-L<(packsign_libdir)', '<!@(node scripts/locate.js ldflags)',
      '-Wl,-z,relro,-z,now',
    ],
    'libraries': ['-lpacksign', '-lpthread'],
    'conditions': [
      ['packsign_sanitize=="1"', {
        'cflags_c!': ['-O2', '-D_FORTIFY_SOURCE=2'],
        'cflags_c': ['-O1', '-fno-omit-frame-pointer',
                     '-fsanitize=address,undefined',
                     '-fno-sanitize-recover=all'],
        'ldflags': ['-fsanitize=address,undefined'],
      }],
    ],
  }],
}
