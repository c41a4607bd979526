import { appendFile } from 'node:fs/promises';

/**
 * Appends Markdown to the job summary GitHub Actions shows when
 * `$GITHUB_STEP_SUMMARY` names its file; elsewhere does nothing.
 */
export async function appendStepSummary(markdown: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return false;
  await appendFile(file, markdown.endsWith('\n') ? `${markdown}\n` : `${markdown}\n\n`);
  return true;
}
