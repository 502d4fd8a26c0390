import { describe, expect, it } from 'vitest';
import { ProgressReporter } from '../replay/progress';

function fakeOutput(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) };
}

const at = (sequence: number) => ({
  from: 1,
  sequence,
  until: 1000,
  messages: sequence,
  events: 2 * sequence,
});

describe('ProgressReporter', () => {
  it('redraws one line on a terminal at most ten times a second, with events/s and the time left', () => {
    let now = 0;
    const out = fakeOutput(true);
    const progress = new ProgressReporter(out, () => now);
    progress.phase('rebuild');
    for (let sequence = 10; sequence <= 1000; sequence += 10) {
      now += 20;
      progress.update(at(sequence));
    }
    // 2 s of updates every 20 ms: a draw every 100 ms, the last one at the end of the range.
    expect(out.written).toHaveLength(20);
    expect(out.written.every((w) => w.startsWith('\r\x1b[2K') && !w.includes('\n'))).toBe(true);
    expect(out.written[4]).toBe(
      '\r\x1b[2Krebuild  [######..................]  25%  250/1,000  1,000 events/s, ETA 1.5s',
    );
    expect(out.written.at(-1)).toContain('100%  1,000/1,000');

    progress.log('note');
    expect(out.written.slice(-2)).toEqual(['\r\x1b[2K', 'note\n']);
    expect(progress.finish()).toEqual([{ phase: 'rebuild', messages: 1000, events: 2000, durationMs: 2000 }]);
  });

  it('writes a plain line every five seconds and at the end of each phase elsewhere', () => {
    let now = 0;
    const out = fakeOutput(false);
    const progress = new ProgressReporter(out, () => now);
    progress.phase('rebuild');
    for (let sequence = 100; sequence <= 1000; sequence += 100) {
      now += 1000;
      progress.update(at(sequence));
    }
    progress.phase('align');
    now += 50;
    progress.update({ from: 1001, sequence: 1003, until: 1003, messages: 3, events: 3 });
    expect(out.written).toEqual([
      'rebuild: sequence 500/1,000 (50%), 200 events/s, ETA 5.0s\n',
      'rebuild: sequence 1,000/1,000 (100%), 200 events/s, ETA 0.0s\n',
      'align: sequence 1,003/1,003 (100%), 60 events/s, ETA 0.0s\n',
    ]);
    expect(progress.finish()).toEqual([
      { phase: 'rebuild', messages: 1000, events: 2000, durationMs: 10_000 },
      { phase: 'align', messages: 3, events: 3, durationMs: 50 },
    ]);
  });
});
