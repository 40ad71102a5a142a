// The TypeScript math against the Rust crate the programs run (`crates/curve`), case by case: the
// `curve-cases` binary emits random cases of every function with Rust's answer (at least 10,000 per function:
// `CURVE_CASES_COUNT`, default 10,000; `CURVE_CASES_SEED`, default 7), and every answer here must be the same to
// the base unit, errors included. Its binary is `CURVE_CASES_BIN`, else built with cargo.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as m from '../src/math/index.js';

const repo = fileURLToPath(new URL('../../..', import.meta.url));
const count = process.env.CURVE_CASES_COUNT ?? '10000';
const seed = process.env.CURVE_CASES_SEED ?? '7';

function cases(): any[] {
  const args = ['--seed', seed, '--count', count];
  const out = process.env.CURVE_CASES_BIN
    ? execFileSync(process.env.CURVE_CASES_BIN, args, { maxBuffer: 1 << 30 })
    : execFileSync('cargo', ['run', '-q', '-p', 'curve-cases', '--', ...args], { cwd: repo, maxBuffer: 1 << 30 });
  return out.toString().trim().split('\n').map((l) => JSON.parse(l));
}

/** What a computation gives, in the cases' JSON shape: `{ok}` or `{error}`. */
function outcome<T>(f: () => T, shape: (v: T) => unknown): unknown {
  try {
    return { ok: shape(f()) };
  } catch (e) {
    if (e instanceof m.CurveError) return { error: e.code };
    throw e;
  }
}

const str = (v: bigint) => v.toString();
const state = (s: m.PoolState) => ({ sqrtPrice: str(s.sqrtPrice), baseReserve: str(s.baseReserve), quoteReserve: str(s.quoteReserve) });
const swap = (r: m.SwapResult) => ({
  amountIn: str(r.amountIn),
  amountOut: str(r.amountOut),
  fee: str(r.fee),
  refund: str(r.refund),
  next: state(r.next),
  completes: r.completes,
});
const ammSwap = (r: m.AmmSwap) => ({
  amountIn: str(r.amountIn),
  fee: str(r.fee),
  amountOut: str(r.amountOut),
  reserveInAfter: str(r.reserveInAfter),
  reserveOutAfter: str(r.reserveOutAfter),
});

test('every function equals crates/curve to the base unit on random cases', () => {
  const all = cases();
  const configs = new Map<number, { market: m.Market; fees: m.FeeSchedule; creatorSurplusShareBps: number }>();
  const seen = new Map<string, number>();
  const failures: string[] = [];
  for (const c of all) {
    if (c.fn === 'config') {
      configs.set(c.idx, {
        market: {
          curve: {
            sqrtStartPrice: BigInt(c.sqrtStartPrice),
            segments: c.segments.map(([u, l]: [string, string]) => ({ sqrtPriceUpper: BigInt(u), liquidity: BigInt(l) })),
          },
          threshold: BigInt(c.threshold),
          saleSupply: BigInt(c.saleSupply),
          migrationSupply: BigInt(c.migrationSupply),
        },
        fees: c.fees,
        creatorSurplusShareBps: c.creatorSurplusShareBps,
      });
      continue;
    }
    seen.set(c.fn, (seen.get(c.fn) ?? 0) + 1);
    const cfg = configs.get(c.config);
    const s: m.PoolState | undefined = c.state && {
      sqrtPrice: BigInt(c.state.sqrtPrice),
      baseReserve: BigInt(c.state.baseReserve),
      quoteReserve: BigInt(c.state.quoteReserve),
    };
    let got: unknown;
    switch (c.fn) {
      case 'buyExactIn':
        got = outcome(() => m.buyExactIn(cfg!.market, s!, BigInt(c.amount), c.feeBps), swap);
        break;
      case 'sellExactIn':
        got = outcome(() => m.sellExactIn(cfg!.market, s!, BigInt(c.amount), c.feeBps), swap);
        break;
      case 'buyExactOut':
        got = outcome(() => m.buyExactOut(cfg!.market, s!, BigInt(c.amount), c.feeBps), swap);
        break;
      case 'sellExactOut':
        got = outcome(() => m.sellExactOut(cfg!.market, s!, BigInt(c.amount), c.feeBps), swap);
        break;
      case 'feeBpsAt': {
        got = { ok: m.feeBpsAt(cfg!.fees, BigInt(c.elapsed)) };
        const next = m.nextChangeAfter(cfg!.fees, BigInt(c.elapsed));
        if ((next === null ? null : next.toString()) !== c.nextChange) failures.push(`nextChangeAfter ${JSON.stringify(c)}: ${next}`);
        break;
      }
      case 'grossForNet':
        got = outcome(() => m.grossForNet(BigInt(c.net), c.feeBps), str);
        break;
      case 'splitFee':
        got = outcome(() => m.splitFee(BigInt(c.fee), c.shareBps), (v) => [str(v.creator), str(v.partner)]);
        break;
      case 'splitReferral':
        got = outcome(() => m.splitReferral(BigInt(c.fee), c.shareBps), (v) => [str(v.referral), str(v.partner)]);
        break;
      case 'distribute':
        got = outcome(() => m.distribute(BigInt(c.amount), c.shares), (v) => v.map(str));
        break;
      case 'ammSwapExactIn':
        got = outcome(() => m.ammSwapExactIn(BigInt(c.reserveIn), BigInt(c.reserveOut), BigInt(c.amount), c.feeBps), ammSwap);
        break;
      case 'ammSwapExactOut':
        got = outcome(() => m.ammSwapExactOut(BigInt(c.reserveIn), BigInt(c.reserveOut), BigInt(c.amount), c.feeBps), ammSwap);
        break;
      case 'planMigration':
        got = outcome(
          () => m.planMigration(BigInt(c.base), BigInt(c.raised), m.sqrtEndPrice(cfg!.market.curve), cfg!.creatorSurplusShareBps),
          (p) => Object.fromEntries(Object.entries(p).map(([k, v]) => [k, str(v as bigint)])),
        );
        break;
      default:
        failures.push(`unknown case ${c.fn}`);
        continue;
    }
    try {
      assert.deepEqual(got, c.result);
    } catch {
      if (failures.length < 20) failures.push(`${c.fn} ${JSON.stringify(c)}\n  got ${JSON.stringify(got)}`);
      else failures.push('');
    }
  }
  assert.equal(failures.length, 0, `${failures.length} cases differ:\n${failures.filter(Boolean).join('\n')}`);
  for (const fn of ['buyExactIn', 'sellExactIn', 'buyExactOut', 'sellExactOut', 'feeBpsAt', 'grossForNet', 'splitFee', 'splitReferral', 'distribute', 'ammSwapExactIn', 'ammSwapExactOut', 'planMigration']) {
    assert.ok((seen.get(fn) ?? 0) >= Number(count), `${fn}: ${seen.get(fn) ?? 0} cases`);
  }
});

test('src/presets.ts is crates/curve pinned presets (scripts/presets.mjs)', async () => {
  const { PINNED_PRESETS } = await import('../src/presets.js');
  const emitted = cases().filter((c) => c.fn === 'config');
  assert.equal(PINNED_PRESETS.length, emitted.length);
  for (const c of emitted) {
    const p = PINNED_PRESETS.find((x) => x.preset === c.preset && x.quote === c.quote);
    assert.ok(p, `${c.preset}/${c.quote}`);
    assert.deepEqual(
      {
        sqrtStartPrice: String(p.sqrtStartPrice),
        segments: p.curve.segments.map((s) => [String(s.sqrtPriceUpper), String(s.liquidity)]),
        threshold: String(p.threshold),
        fees: p.fees,
        shares: [p.creatorFeeShareBps, p.creatorSurplusShareBps, p.referralShareBps],
      },
      {
        sqrtStartPrice: c.sqrtStartPrice,
        segments: c.segments,
        threshold: c.threshold,
        fees: c.fees,
        shares: [c.creatorFeeShareBps, c.creatorSurplusShareBps, c.referralShareBps],
      },
      'stale: run `node scripts/presets.mjs` in clients/ts',
    );
  }
});
