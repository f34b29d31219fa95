/**
 * `filmkw eval`: score one system (a preset with overrides, or a nodejieba baseline) against a gold
 * file; `filmkw experiments`: run an experiment config (Fig. 5, Fig. 6, baselines, sweep) and write
 * results.json, results.md, SVG charts and predictions into a directory. Thin: the work is in src/eval.
 */
import { diskCacheFromEnv } from '../../lexicon/cache.js';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Option, type Command } from 'commander';
import { assertNotAnInput } from '../../util/files.js';
import type { KgView } from '../../kg/model.js';
import { usageError } from '../../errors.js';
import { checked } from './option-parsers.js';
import { conflicts } from '../usage-errors.js';
import { loadCorpusStats } from '../../pipeline/corpus-stats.js';
import { GOLD_FORMATS, goldHasField, NO_GROUP, readGold, type GoldDocument, type ReadGoldOptions } from '../../eval/readers.js';
import { createMatcher, evaluateGroups, parseKs, resolveEvalOptions, type EvalOptions } from '../../eval/metrics.js';
import { goldPlacement, placementTable } from '../../eval/placement.js';
import { evaluateSystem } from '../../eval/systems.js';
import { evalJson, evalTable, groupTable } from '../../eval/report.js';
import { BASELINES, baselineNeedsDict, checkBaseline } from '../../eval/baselines.js';
import { SystemBuilder, parseOverrides, systemName } from '../../eval/factory.js';
import { kgModules } from '../../eval/deps.js';
import { buildResults, planSystems, readExperimentConfig, roundScores, runExperiments, selectParts, type SystemSpec } from '../../eval/experiments.js';
import { writeExperimentOutputs } from '../../eval/output.js';
import { resolveOptions } from '../../pipeline/options.js';
import { needsKg as presetNeedsKg } from '../../pipeline/core.js';
import { SEGMENTER_BACKENDS } from '../../lexicon/base.js';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** `eval --by`: a field name, not blank. */
const BY_FIELD = checked((raw) => (raw.trim() === '' ? undefined : raw), 'must be a field name');

/** Package root (dist/cli/commands or src/cli/commands → three levels up). */
const packageRoot = (): string => fileURLToPath(new URL('../../../', import.meta.url));

function packageInfo(): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
  return { name: pkg.name, version: pkg.version };
}

interface GoldFlags {
  gold: string;
  format: string;
  textField: string;
  idField: string;
  /** `eval --by`: the jsonl field that groups the documents. */
  by?: string;
  /** jsonl fields of each text's film and title (the document context). */
  filmField?: string;
  titleField?: string;
}

interface KgFlags {
  /** A path, false for --no-kg, undefined for the default (bundled demo KG). */
  kg?: string | false;
}

/** The default context fields of a gold file (`--film-field auto`, `--title-field auto`): those of the annotated sets. */
export const AUTO_CONTEXT_FIELDS = Object.freeze({ film: 'doubanId', title: 'title' });

function readGoldFlags(flags: GoldFlags): GoldDocument[] {
  // auto: the annotated sets' field when the file has it (a jsonl record holds it), else none; none: no context
  const context = (flag: string | undefined, auto: string): string => {
    if (flag === undefined || flag === 'auto') return flags.format === 'jsonl' && goldHasField(flags.gold, auto) ? auto : '';
    return flag === 'none' ? '' : flag;
  };
  const options: Partial<ReadGoldOptions> = {
    format: flags.format as ReadGoldOptions['format'],
    textField: flags.textField,
    idField: flags.idField,
    ...(flags.by !== undefined ? { groupField: flags.by } : {}),
    filmField: context(flags.filmField, AUTO_CONTEXT_FIELDS.film),
    titleField: context(flags.titleField, AUTO_CONTEXT_FIELDS.title),
  };
  return readGold(flags.gold, options, flags.gold);
}

const stderr = (s: string) => process.stderr.write(s);

/** Load the KG selected by --kg / --no-kg; `source` is a label without directories. */
async function loadKgFlag(flags: KgFlags): Promise<{ kg: KgView | null; source: string }> {
  if (flags.kg === false) {
    const emptyKg = await kgModules().then((m) => m.emptyKg, () => undefined);
    return { kg: emptyKg ? emptyKg() : null, source: 'none (empty KG)' };
  }
  const { loadKg } = await kgModules();
  const kg = await loadKg({ kg: flags.kg, onProgress: (msg) => stderr(`${msg}\n`) });
  return { kg, source: flags.kg ? basename(flags.kg.replace(/[\\/]+$/, '')) : 'demo (bundled)' };
}

function evalOptionsFromFlags(flags: { k: string; precisionDenominator: string; ts?: boolean; kgAliases?: boolean }): EvalOptions {
  return resolveEvalOptions({
    ks: parseKs(flags.k),
    precisionDenominator: flags.precisionDenominator,
    traditionalSimplified: flags.ts === true,
    kgAliases: flags.kgAliases === true,
  });
}

function addGoldOptions(cmd: Command): Command {
  return cmd
    .requiredOption('--gold <file>', 'gold keyword file')
    .addOption(new Option('--format <format>', 'gold file format: jsonl (paper, keywords in "tag") or csl (CSL benchmark TSV)').choices(GOLD_FORMATS).default('jsonl'))
    .option('--text-field <field>', 'jsonl: field holding the text', 'text')
    .option('--id-field <field>', 'jsonl: field holding the document id', 'id')
    .option('--film-field <field>', `jsonl: field holding the film each text is about (a Douban id or a film name), given to the extractor as the document context; auto: "${AUTO_CONTEXT_FIELDS.film}" when the file has it; none: no film`, 'auto')
    .option('--title-field <field>', `jsonl: field holding each text's title, given to the extractor as the document context; auto: "${AUTO_CONTEXT_FIELDS.title}" when the file has it; none: no title`, 'auto')
    .option('--kg <file>', 'KG snapshot file or csv directory (default: the bundled demo KG)')
    .option('--no-kg', 'run without a KG (an empty KG: +W/+G/+R add nothing)')
    .addOption(new Option('--backend <name>', 'segmenter backend passed to the pipeline (default: the pipeline default)').choices(SEGMENTER_BACKENDS));
}

interface EvalFlags extends GoldFlags, KgFlags {
  preset?: string;
  set: string[];
  baseline?: string;
  k: string;
  precisionDenominator: string;
  ts?: boolean;
  kgAliases?: boolean;
  backend?: string;
  json?: boolean;
  placement?: boolean;
  corpusStats?: string;
}

async function runEval(flags: EvalFlags): Promise<void> {
  // both: a declared conflict (registerEval)
  if (flags.preset === undefined && flags.baseline === undefined) {
    throw usageError(`eval: give exactly one of --preset <name> or --baseline <name> (baselines: ${BASELINES.join(', ')})`);
  }
  const evalOptions = evalOptionsFromFlags(flags);
  const spec: SystemSpec = flags.baseline !== undefined
    ? { label: checkBaseline(flags.baseline), baseline: flags.baseline }
    : { label: flags.preset!, preset: flags.preset, overrides: parseOverrides(flags.set) };
  const docs = readGoldFlags(flags);
  await new SystemBuilder({ kg: null }).validate([spec]);
  const { kg } = needsKg([spec], evalOptions) ? await loadKgFlag(flags) : { kg: null };
  const corpusStats = flags.corpusStats === undefined ? undefined : flags.corpusStats === 'none' ? null : loadCorpusStats(flags.corpusStats);
  const builder = new SystemBuilder({ kg, backend: flags.backend, cache: diskCacheFromEnv(), ...(corpusStats !== undefined ? { corpusStats } : {}) });
  try {
    await builder.validate([spec]);
    const system = await builder.build(spec);
    try {
      const { result, predictions } = await evaluateSystem(system, docs, evalOptions, kg ?? undefined);
      const name = systemName(spec);
      const rounded = { ...result, macro: roundScores(result.macro), micro: roundScores(result.micro) };
      const placement = flags.placement && system.extractor
        ? goldPlacement(system.extractor, docs, Math.max(...evalOptions.ks), createMatcher(evalOptions, kg ?? undefined))
        : null;
      const groups = flags.by !== undefined
        ? evaluateGroups(docs.map((d, i) => ({ id: d.id, gold: d.gold, predicted: predictions[i] })), docs.map((d) => d.group ?? NO_GROUP), evalOptions, kg ?? undefined)
        : null;
      if (flags.json) {
        const byGroup = groups ? { by: flags.by, groups: groups.map((g) => ({ ...g, macro: roundScores(g.macro), micro: roundScores(g.micro) })) } : {};
        process.stdout.write(JSON.stringify({ ...evalJson(name, rounded), ...byGroup, ...(placement ? { placement } : {}) }) + '\n');
      } else {
        const parts = [evalTable(name, result, basename(flags.gold)), groups ? groupTable(flags.by!, groups) : '', placement ? placementTable(placement) : ''];
        process.stdout.write(parts.filter(Boolean).join('\n'));
      }
    } finally {
      await system.close();
    }
  } finally {
    builder.dispose();
  }
}

/**
 * A KG is loaded only when something uses it: a preset with the lexicon, KG edges or semantic
 * similarity, a +dict baseline, or alias matching. (Plain TextRank/PositionRank rank the same with or
 * without a KG; it would only annotate entity kinds.)
 */
const needsKg = (specs: readonly SystemSpec[], e: EvalOptions): boolean =>
  e.kgAliases ||
  specs.some((s) =>
    s.preset !== undefined ? presetNeedsKg(resolveOptions(s.preset, s.overrides ?? {})) : baselineNeedsDict(checkBaseline(s.baseline!)),
  );

interface ExperimentsFlags extends GoldFlags, KgFlags {
  out: string;
  config: string;
  only?: string;
  backend?: string;
  predictions?: boolean;
}

async function runExperimentsCommand(flags: ExperimentsFlags): Promise<void> {
  const config = selectParts(
    readExperimentConfig(flags.config, flags.config),
    flags.only?.split(',').map((s) => s.trim()).filter(Boolean),
    basename(flags.config),
  );
  const docs = readGoldFlags(flags);
  const inputs = [flags.gold, flags.config, ...(flags.kg ? [flags.kg] : [])];
  const notAnInput = (path: string) => assertNotAnInput('experiments', 'the output', path, inputs);
  for (const f of ['results.json', 'results.md']) notAnInput(join(flags.out, f)); // before hours of work, not after
  const plan = planSystems(config);
  await new SystemBuilder({ kg: null }).validate(plan.map((p) => p.spec));
  const { kg, source } = needsKg(plan.map((p) => p.spec), resolveEvalOptions((config.eval ?? {}) as Record<string, unknown>))
    ? await loadKgFlag(flags)
    : { kg: null, source: 'not used' };
  const builder = new SystemBuilder({ kg, backend: flags.backend, cache: diskCacheFromEnv() });
  try {
    await builder.validate(plan.map((p) => p.spec));
    stderr(`experiments: ${config.name}: ${plan.length} systems × ${docs.length} documents (${basename(flags.gold)}, KG: ${source})\n`);
    const tty = process.stderr.isTTY === true;
    const runs = await runExperiments(config, docs, (spec) => builder.build(spec), {
      systemStart: (i, n, p) => {
        if (tty) stderr(`[${i + 1}/${n}] ${systemName(p.spec)} …`);
      },
      document: (done, total) => {
        if (tty && (done % 20 === 0 || done === total)) stderr(`\r\x1b[K[…] ${done}/${total} documents`);
      },
      systemDone: (i, n, p, run) => {
        const lastK = run.result.macro[String(Math.max(...Object.keys(run.result.macro).map(Number)))];
        stderr(`${tty ? '\r\x1b[K' : ''}[${i + 1}/${n}] ${systemName(p.spec)}: F1@max K ${lastK.f1.toFixed(4)} (${run.seconds.toFixed(1)} s)\n`);
      },
    }, kg ?? undefined);
    const results = buildResults(config, runs, {
      date: new Date().toISOString().slice(0, 10),
      package: packageInfo(),
      dataset: { name: basename(flags.gold), format: flags.format, docs: docs.length, sha256: createHash('sha256').update(readFileSync(flags.gold)).digest('hex') },
      kg: kg ? { source, contentHash: kg.contentHash, entities: kg.entityCount } : null,
    }, docs);
    const { files } = await writeExperimentOutputs(flags.out, results, config, runs, docs, {
      predictions: flags.predictions !== false,
      beforeWrite: notAnInput,
    });
    stderr(`experiments: wrote ${files.length} files to ${flags.out}\n`);
  } finally {
    builder.dispose();
  }
}

/** `eval --baseline`: one of BASELINES, instead of --preset and the options only a preset has. */
function baselineOption(): Option {
  const option = new Option('--baseline <name>', 'nodejieba baseline').choices(BASELINES).conflicts('preset');
  conflicts(option, 'set', '--set applies to presets, not to baselines');
  return conflicts(option, 'placement', '--placement needs a pipeline preset: a baseline exposes no candidates');
}

/** Registers `filmkw eval` and `filmkw experiments`. */
export function registerEval(program: Command): void {
  addGoldOptions(
    program
      .command('eval')
      .description('score a preset (with --set overrides) or a nodejieba baseline against gold keywords: P/R/F1@K, macro and micro'),
  )
    .option('--preset <name>', 'pipeline preset to evaluate (see `filmkw tag --help` for the list)')
    .option('--set <key=value>', 'override one pipeline option of the preset (repeatable; value parsed as JSON when possible)', collect, [])
    .addOption(baselineOption())
    .option('--k <list>', 'cut-offs K, e.g. 1,2,3,4,5 or 1-5', '1,2,3,4,5')
    .addOption(new Option('--precision-denominator <d>', 'precision divides by the number returned or by k').choices(['returned', 'k']).default('returned'))
    .option('--ts', 'fold traditional to simplified characters on both sides before matching')
    .option('--kg-aliases', 'also count a match when prediction and gold name a common KG entity')
    .option('--json', 'print {"system","docs","macro","micro"} as one JSON line')
    .option('--by <field>', 'also give the macro scores per group of documents, the groups being the values of this jsonl field (e.g. kind, film; in --json as "groups")', BY_FIELD)
    .option('--corpus-stats <file|none>', 'corpus statistics for the re-ranker\'s corpus features: a table of `filmkw corpus build`, or none (default: the table shipped with the package, when the model uses it)')
    .option('--placement', 'also say where the gold keywords land: top K (the largest --k), ranked K+1–2K, 2K+1–4K, lower, hidden by a longer or a shorter overlapping variant ranked higher, outside the re-rank pool, never a candidate (presets only; in --json as "placement")')
    .action(async (flags: EvalFlags) => runEval(flags));

  addGoldOptions(
    program
      .command('experiments')
      .description("run the paper's experiments (Fig. 5, Fig. 6, nodejieba baselines, option sweep) and write results.md, results.json, SVG charts and report.html (every chart on one page)"),
  )
    .requiredOption('--out <dir>', 'output directory')
    .option('--config <file>', 'experiment config (JSON)', `${packageRoot()}eval/configs/experiments.json`)
    .option('--only <parts>', 'comma-separated group/sweep ids to run, e.g. fig5,fig6,baselines,sweep')
    .option('--no-predictions', 'do not write predictions/<group>.jsonl')
    .action(async (flags: ExperimentsFlags) => runExperimentsCommand(flags));
}
