import { stat } from 'node:fs/promises';
import { basename, dirname, extname } from 'node:path';
import type { Command } from 'commander';
import { loadCassette, writeFileAtomic } from '../../cassette/index.js';
import { loadPacks, verifyCassette } from '../../contracts/index.js';
import { DEFAULT_DRIFT_CONFIG, runDrift } from '../../drift/index.js';
import { UsageError } from '../../errors.js';
import { isCassetteFile, listFiles } from '../../fs/list-files.js';
import { buildSection, markDrift, markViolations, renderTimelineHtml } from '../../timeline/index.js';
import { checkOutputFile } from '../output-file.js';
import { runCommand } from '../run-command.js';

interface TimelineFlags {
  out?: string;
  verify?: boolean;
  pack?: string[];
  drift?: string;
}

export function registerTimeline(program: Command): void {
  program
    .command('timeline')
    .description(
      'draw cassettes as one self-contained HTML page: a lane per connection, a mark per request, event and frame, an arrow per causal link',
    )
    .argument('<cassettes...>', 'cassette files or folders')
    .option('-o, --out <file>', 'the HTML file to write (default: stdout)')
    .option('--verify', "mark contract violations (each cassette's meta.packs, or --pack) on the events that broke a rule")
    .option('--pack <name|file>', 'with --verify: check against this pack instead (repeatable)', (v: string, prev: string[] = []) => [
      ...prev,
      v,
    ])
    .option(
      '--drift <baseline>',
      "mark drift findings: compare the cassettes' folder with this baseline folder, as bench drift --candidate does",
    )
    .addHelpText(
      'after',
      `
The page needs no network (its Content-Security-Policy forbids every fetch):
open it from disk, attach it to a CI run. Hover a mark for its summary, click
it for its payload and the links it takes part in; the zoom slider widens the
time axis. Plain requests share a lane as on keep-alive connections; each SSE
stream and WebSocket session has its own. \`bench inspect --timeline FILE\` says
the same in text.

Examples:
  $ bench timeline cassettes/kiro-native/streaming.yaml -o streaming.html
  $ bench timeline cassettes/claude-native --verify -o claude.html
  $ bench timeline recordings/kiro-native --drift cassettes/kiro-native -o drift.html`,
    )
    .action((paths: string[], flags: TimelineFlags) =>
      runCommand(async () => {
        if (flags.out) await checkOutputFile('-o', flags.out);
        if (flags.pack && !flags.verify) throw new UsageError('--pack chooses the packs of --verify; add --verify');
        const packs = flags.pack ? (await Promise.all(flags.pack.map(loadPacks))).flat() : undefined;
        const files = (await Promise.all(paths.map((p) => listFiles(p, isCassetteFile)))).flat();
        if (files.length === 0) throw new UsageError(`no cassette (*.yaml) under ${paths.join(', ')}`);
        const findings = flags.drift
          ? (
              await runDrift({
                baseline: flags.drift,
                candidate:
                  files.length === 1 || (await stat(paths[0] as string)).isFile() ? dirname(files[0] as string) : (paths[0] as string),
                config: DEFAULT_DRIFT_CONFIG,
              })
            ).findings
          : [];
        const sections = [];
        let violations = 0;
        let drift = 0;
        for (const file of files) {
          const cassette = await loadCassette(file);
          const section = buildSection(file, cassette);
          if (flags.verify)
            violations += markViolations(
              section,
              verifyCassette(cassette, file, packs).rules.flatMap((r) => r.violations),
            );
          if (flags.drift) drift += markDrift(section, findings, basename(file, extname(file)));
          sections.push(section);
        }
        const title = `tapedeck timeline: ${paths.join(', ')}`;
        const html = renderTimelineHtml(title, sections);
        if (!flags.out) {
          process.stdout.write(html);
          return 0;
        }
        await writeFileAtomic(flags.out, html);
        const marks = sections.reduce((n, s) => n + s.marks.length, 0);
        process.stderr.write(
          `bench timeline: ${flags.out}: ${files.length} cassettes, ${marks} marks${flags.verify ? `, ${violations} violations marked` : ''}${flags.drift ? `, ${findings.length} drift findings on ${drift} marks` : ''}\n`,
        );
        return 0;
      }),
    );
}
