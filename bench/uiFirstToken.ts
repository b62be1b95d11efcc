/**
 * ui.first_token: from the model's first streamed byte to the sidebar showing it, in the real
 * workbench. The scripted model server stamps the moment it writes a reply's first content chunk
 * (wall clock, sub-ms); a MutationObserver in the sidebar stamps the moment that text is in the
 * DOM (the same machine's wall clock). Both sides follow a step of the system clock as it happens
 * (`followingWallClock` of test/fixtures/modelServer.ts, the same function in both): the model
 * server starts before the browser page, and a clock step between the two starts once shifted
 * every figure of a run by 175 ms.
 * Baseline, measured in the same run on the same replies: when the committed reply shows, which
 * is when the person first saw any of it before replies streamed to the sidebar.
 */
import type { Frame } from 'playwright-core';
import type { UiSession } from '../test/ui/support/workbench';
import { route, sendChatMessage } from '../test/ui/support/workbench';
import { followingWallClock } from '../test/fixtures/modelServer';

interface Stamp {
  marker: string;
  firstShownAt?: number;
  committedAt?: number;
}

/** Streamed replies of this many 8-character chunks, one every CHUNK_DELAY_MS: a slow model. */
const CHUNKS = 24;
const CHUNK_DELAY_MS = 40;

export interface FirstTokenResult {
  /** ms from the first streamed byte to the sidebar showing it. */
  firstToken: number[];
  /** ms from the same byte to the committed reply showing (the baseline). */
  committed: number[];
}

export async function measureFirstToken(ui: UiSession, frame: Frame, runs: number): Promise<FirstTokenResult> {
  await frame.evaluate('window.__name = (f) => f');
  // The model server's clock, made in the page from the same source (the page has no module of ours).
  await frame.evaluate(`window.__wallClock = (${followingWallClock.toString()})()`);
  await frame.evaluate(() => {
    const w = window as unknown as { __stamps: Record<string, { firstShownAt?: number; committedAt?: number }>; __markers: string[] };
    w.__stamps = {};
    w.__markers = [];
    const transcript = document.querySelector('#transcript') as HTMLElement;
    const now = (window as unknown as { __wallClock: () => number }).__wallClock;
    new MutationObserver(() => {
      const at = now();
      for (const marker of w.__markers) {
        const stamp = (w.__stamps[marker] ??= {});
        if (stamp.firstShownAt === undefined) {
          const live = transcript.querySelector('.msg-streaming');
          if (live?.textContent?.includes(marker)) stamp.firstShownAt = at;
        }
        if (stamp.committedAt === undefined) {
          for (const el of transcript.querySelectorAll('.msg[data-role="assistant"]')) {
            if (el.textContent?.includes(marker)) stamp.committedAt = at;
          }
        }
      }
    }).observe(transcript, { subtree: true, childList: true, characterData: true });
  });

  const firstToken: number[] = [];
  const committed: number[] = [];
  for (let i = 0; i < runs; i++) {
    // The marker and a space are the first chunk: one whole word, as a model's first token is (the
    // sidebar holds back a word until what follows it shows it ended; src/core/engine/streaming.ts).
    const marker = `ft${i}x${Date.now().toString(36).slice(-3)}`.slice(0, 7);
    const text = `${marker}${' and more streamed words'.repeat(CHUNKS)}`.slice(0, CHUNKS * 8);
    await frame.evaluate((m) => (window as unknown as { __markers: string[] }).__markers.push(m), marker);
    // The workbench is shared with background work (memory, the message router): the reply is
    // routed to this run's message (test/support/routes.ts).
    const r = route('first-token');
    await ui.model.reset();
    await ui.script(r, [{ text, chunkDelayMs: CHUNK_DELAY_MS }]);
    await sendChatMessage(frame, `first token run ${i} ${r}`);
    await frame.locator('#transcript .msg[data-role="assistant"]', { hasText: marker }).waitFor({ timeout: 30_000 });
    const stamp = await frame.evaluate(
      (m) => ({ marker: m, ...(window as unknown as { __stamps: Record<string, Omit<Stamp, 'marker'>> }).__stamps[m] }),
      marker,
    );
    const request = (await ui.requests<{ firstChunkAt?: number }>(r)).at(-1);
    if (request?.firstChunkAt === undefined || stamp.firstShownAt === undefined || stamp.committedAt === undefined) {
      throw new Error(`run ${i}: missing stamps (server first chunk ${request?.firstChunkAt}, shown ${stamp.firstShownAt}, committed ${stamp.committedAt})`);
    }
    firstToken.push(stamp.firstShownAt - request.firstChunkAt);
    committed.push(stamp.committedAt - request.firstChunkAt);
  }

  return { firstToken, committed };
}
