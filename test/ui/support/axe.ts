import { createRequire } from 'node:module';
import type { Frame } from 'playwright-core';

/** One axe-core violation, as a test reports it. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * Runs axe-core inside `frame` on the elements `selector` matches (the whole document without
 * one) and returns every violation, whatever its impact. The source is evaluated through the
 * debugger protocol: the webview's and the workbench's CSP forbid injected script tags.
 */
export async function axeViolations(frame: Frame, selector?: string): Promise<AxeViolation[]> {
  const axeSource = (createRequire(__filename)('axe-core') as { source: string }).source;
  if (!(await frame.evaluate(() => 'axe' in window))) await frame.evaluate(axeSource);
  return frame.evaluate(async (scope) => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            context: unknown,
            options: unknown,
          ): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[]; html: string }> }> }>;
        };
      }
    ).axe;
    const context = scope ? { include: [...document.querySelectorAll(scope)] } : document;
    const result = await axe.run(context, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 3).map((n) => `${JSON.stringify(n.target)} ${n.html.slice(0, 300)}`),
    }));
  }, selector);
}
