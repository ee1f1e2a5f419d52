// Type-checked by tsc --noEmit --strict (types.test.mjs): every call of
// index.d.ts as a TypeScript installer would make it.  Never run.
import fs from 'node:fs';
import * as packsign from '../../index.js';
import type { InstallPlan, InstallResult, PacksignError } from '../../index.js';

async function installer(archive: string, trust: string, dataDir: string):
    Promise<InstallResult | null> {
  const v = await packsign.verify(archive, { trust, at: new Date() });
  if (!v.ok) {
    console.error(`${v.code}: expected ${v.expected}, found ${v.found}`);
    return null;
  }
  const summary: string = await packsign.describe(archive, { lang: 'zh' });
  const ac = new AbortController();
  try {
    return await packsign.install(archive, { trust, dataDir, signal: ac.signal,
      consent: async (plan: InstallPlan) => {
        const widened = plan.diff?.changes.filter((c) => c.widening) ?? [];
        return widened.length < 3 && plan.consent_needed.includes('permissions');
      },
      confirm: (plan) => plan.destination !== null && summary.length > 0,
      waiting: (lock: string) => { console.log(`waiting for ${lock}`); } });
  } catch (e) {
    if (e instanceof packsign.PacksignError) {
      const err: PacksignError = e;
      const code: string = err.code;
      const exit: 1 | 2 = err.exit;
      console.error(code, exit, err.subject, err.expected, err.found);
    }
    throw e;
  }
}

async function rest(dir: string, trust: string): Promise<void> {
  const d = await packsign.digest(dir, { files: true });
  const t: string = d.tree_digest;
  const val = await packsign.validate(dir, { strict: true });
  const n: number = val.errors + (d.files?.length ?? 0);
  const diff = await packsign.diff({ installed: 'acme.reviewer' }, dir,
    { trust, dataDir: '/srv/packs' });
  const text: string = packsign.diffText(diff);
  await packsign.install(dir, { trust, acceptDiff: diff, accept: ['code'] });
  const ix = await packsign.verifyIndex(new URL('https://example.invalid/index.json'),
    { trust, fetch: { caFile: '/etc/ca.pem', timeout: 30 } });
  const entry = ix.resolve('acme.reviewer', '^1.2');
  const seen = await packsign.indexStateLoad('/srv/packs', ix.publisher);
  packsign.indexStateCheck(seen, ix);
  const recorded: boolean = await packsign.indexStateRecord('/srv/packs', ix);
  const r = await packsign.installIndexed(ix, entry, { trust,
    consent: () => true, recordState: recorded });
  ix.close();
  const listed = await packsign.list('/srv/packs');
  const pins = listed[0]?.pins?.signers[0]?.identity;
  const gone = await packsign.uninstall('acme.reviewer', { version: '1.2.0' });
  const signed = await packsign.sign(dir, { key: Buffer.from('...'),
    passphrase: Buffer.from('pass\n'), output: 'out.tar.gz' });
  const keyless = await packsign.sign(dir, { keyless: true,
    identityToken: Buffer.from('eyJ...'), signingConfig: 'sc.json',
    trustedRoot: 'root.json', caFile: 'ca.pem', predicateVersion: 2 });
  const fromFd = await packsign.install('a.tar.gz', { trust, archiveFd: 0,
    sigPath: 'a.tar.gz.sig' });
  const fromStream = await packsign.install('a.tar.gz', { trust,
    archiveStream: fs.createReadStream('a.tar.gz'), sigPath: 'a.tar.gz.sig' });
  const fetched = await packsign.fetch('https://example.invalid/a.tar.gz',
    'a.tar.gz', { publicKey: 'alice.pub', signal: AbortSignal.timeout(1000) });
  const installed = await packsign.verifyInstalled('/srv/packs/x', { trust });
  const url = await packsign.installUrl('https://example.invalid/a.tar.gz',
    { trust, fetch: { proxy: 'http://proxy:3128' } });
  const bytes: Buffer = await packsign.readIndex('index.json');
  console.log(t, n, text, r.action, pins, gone.removed.length, signed.sig,
    fetched.ok, installed.check?.modified, url.upgrade?.consent_by,
    bytes.length, packsign.ABI_VERSION, packsign.libraryVersion().library,
    keyless.bundles, fromFd.verify?.read.how,
    fromFd.verify?.signatures[0]?.keyless?.signer_id,
    fromFd.verify?.source?.certified, fromStream.action);
}

async function blob(file: string, bundle: string): Promise<string | null> {
  try {
    const r = await packsign.verifyBlob(file, { bundle,
      identity: 'https://github.com/acme/app/.github/workflows/release.yml@refs/tags/v1',
      issuer: 'https://token.actions.githubusercontent.com', at: new Date() });
    const repo: string | null | undefined =
      r.certificate?.extensions.fields.source_repository_uri;
    const logged: number = r.log_entries?.[0]?.log_index ?? -1;
    const byKey = await packsign.verifyBlob(null, { bundle, key: 'key.pem',
      sha256: 'sha256:' + 'ab'.repeat(32), trustedRoot: 'trusted_root.json' });
    const v = await packsign.verify(file, { publicKey: 'alice.pub',
      bundles: [bundle], trustedRoot: new URL('file:///etc/root.json') });
    const times = v.signatures?.[0]?.sigstore?.signing_times ?? [];
    console.log(logged, byKey.key?.details, times.length);
    return repo ?? null;
  } catch (e) {
    if (e instanceof packsign.PacksignError && e.result !== undefined &&
        'steps' in e.result) {
      console.error(e.code, e.result.steps?.identity);
    }
    return null;
  }
}

void installer;
void rest;
void blob;
