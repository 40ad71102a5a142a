// The committed generated code (src/generated: Codama's codecs of both programs from ../../idl, the REST
// types from openapi.json) is what the generator makes now: a changed IDL or API document fails here until
// `npm run generate` is run and committed, as the IDL test does for the programs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = fileURLToPath(new URL('..', import.meta.url));

function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p, 'utf8'));
    }
  };
  walk(dir);
  return out;
}

test('src/generated is what scripts/generate.mjs makes from the IDLs and openapi.json', () => {
  const fresh = mkdtempSync(join(tmpdir(), 'sdk-generated-'));
  execFileSync('node', ['scripts/generate.mjs', fresh], { cwd: pkg, stdio: 'pipe' });
  const want = files(fresh);
  const have = files(join(pkg, 'src/generated'));
  const stale = [...new Set([...want.keys(), ...have.keys()])].filter((f) => want.get(f) !== have.get(f));
  assert.deepEqual(stale, [], 'stale generated files: run `npm run generate` in clients/ts and commit');
});

test("the package's version follows the IDLs' (major.minor)", () => {
  const version = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).version as string;
  for (const program of ['launchpad', 'amm']) {
    const idl = JSON.parse(readFileSync(join(pkg, `../../idl/${program}.json`), 'utf8'));
    assert.equal(version.split('.').slice(0, 2).join('.'), String(idl.metadata.version).split('.').slice(0, 2).join('.'), program);
  }
});

test('npm pack holds the built package, its README and LICENSE only', () => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: pkg, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  const [{ files: packed }] = JSON.parse(out) as [{ files: { path: string }[] }];
  const paths = packed.map((f) => f.path);
  assert.ok(paths.includes('package.json') && paths.includes('README.md') && paths.includes('LICENSE'), paths.join(', '));
  const stray = paths.filter((p) => !(p.startsWith('dist/') || p === 'package.json' || p === 'README.md' || p === 'LICENSE'));
  assert.deepEqual(stray, [], 'nothing but dist/, package.json, README.md and LICENSE');
  assert.ok(!paths.some((p) => /(^|\/)test\/|\.test\.|node_modules/.test(p)), 'no tests');
});
