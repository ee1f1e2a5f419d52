#!/usr/bin/env node
// install-pack.mjs ARCHIVE POLICY [DATA_DIR] [--answer yes|no]: a short
// installer over the packsign Node.js binding (bindings/node).
//
// It verifies the signed ARCHIVE (its .sig beside it) against the trust
// policy POLICY, says what the pack may do, shows what an upgrade changes
// since the installed version, asks through its consent callback, and
// installs into DATA_DIR (default: packsign's data directory).  The
// callback asks on the terminal when standard input is one; otherwise it
// takes --answer, as an installer's own window would give it (no answer:
// refused).  Exit 0 installed, 1 refused, 2 failed, as packsign does.
//
//   npm install ./bindings/node        # after make
//   node examples/node/install-pack.mjs pack.tar.gz trust.yaml
import { createInterface } from 'node:readline/promises';

import * as packsign from 'packsign';

function usage() {
  console.error('usage: install-pack.mjs ARCHIVE POLICY [DATA_DIR] ' +
    '[--answer yes|no]');
  process.exit(2);
}

function parse(argv) {
  const args = [];
  let answer = null;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--answer' && /^(yes|no)$/.test(argv[i + 1] ?? '')) {
      answer = argv[++i] === 'yes';
    } else if (argv[i].startsWith('-')) {
      usage();
    } else {
      args.push(argv[i]);
    }
  }
  if (args.length < 2 || args.length > 3) {
    usage();
  }
  return { archive: args[0], trust: args[1], dataDir: args[2], answer };
}

function showDiff(diff) {
  for (const c of diff.changes) {
    const mark = c.widening && c.consent ? `  [widening: ${c.consent}]` : '';
    console.log(`    ${c.kind} ${c.field}${c.subject ? ` ${c.subject}` : ''}` +
      `${c.old !== null || c.new !== null ? `: ${c.old ?? 'none'} -> ` +
        `${c.new ?? 'none'}` : ''}${mark}`);
  }
}

// The consent UI: the plan says what is being installed and which
// widening classes the policy asks about.  Only `true` consents.
async function ask(plan, answer) {
  console.log(`consent needed for: ${plan.consent_needed.join(', ')} ` +
    `(${plan.id} ${plan.replaces_newest} -> ${plan.version}, signed by ` +
    `${plan.signer})`);
  if (process.stdin.isTTY) {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    try {
      return /^y(es)?$/i.test((await rl.question('Upgrade? [y/N] ')).trim());
    } finally {
      rl.close();
    }
  }
  if (answer === null) {
    console.error('not a terminal and no --answer: refusing');
  }
  return answer === true;
}

async function main() {
  const a = parse(process.argv.slice(2));
  const dataDir = a.dataDir ?? packsign.dataDirDefault();
  const v = await packsign.verify(a.archive, { trust: a.trust });
  if (!v.ok) {
    console.error(`install-pack: ${v.subject}: ${v.message}`);
    console.error(`  code:     ${v.code}`);
    if (v.expected !== null) {
      console.error(`  expected: ${v.expected}\n  found:    ${v.found}`);
    }
    return v.exit;
  }
  console.log(`verified ${v.id} ${v.version}, signed by ` +
    v.identities.map((i) => `${i.identity} (${i.fingerprint})`).join(', '));
  console.log(await packsign.describe(a.archive));
  const newest = (await packsign.list(dataDir)).find((p) => p.id === v.id &&
    p.newest);
  if (newest !== undefined && newest.version !== v.version) {
    const d = await packsign.diff({ installed: v.id, format: v.format },
      a.archive, { trust: a.trust, dataDir });
    console.log(`upgrade from ${newest.version}:`);
    showDiff(d);
  }
  const r = await packsign.install(a.archive, { trust: a.trust, dataDir,
    consent: (plan) => ask(plan, a.answer), consentBy: 'install-pack.mjs' });
  if (r.action === 'already_installed') {
    console.log(`already installed: ${r.id} ${r.version} (${r.path})`);
  } else {
    console.log(`installed ${r.id} ${r.version} to ${r.path}`);
  }
  return 0;
}

main().then((code) => process.exit(code), (e) => {
  if (e instanceof packsign.PacksignError) {
    console.error(`install-pack: ${e.message}`);
    process.exit(e.exit);
  }
  console.error(e);
  process.exit(2);
});
