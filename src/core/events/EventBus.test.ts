/**
 * The event backlog is a ring; resuming from any id must answer exactly what a plain list of the last N events would:
 * the events after the id, or a reset when some of them have already gone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { RuntimeEvent } from '../../protocol/events.js';
import { EventBus } from './EventBus.js';

test('resuming from any id gives what a plain list of the last N events gives, across the ring wrapping', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 6 }),
      fc.array(fc.oneof(fc.constant<'publish'>('publish'), fc.integer({ min: -2, max: 40 })), { maxLength: 60 }),
      (capacity, steps) => {
        const bus = new EventBus(capacity, () => 0);
        const all: RuntimeEvent[] = [];
        for (const step of steps) {
          if (step === 'publish') {
            all.push(bus.publish('s', { type: 'session_closed' }));
            continue;
          }
          const kept = all.slice(Math.max(0, all.length - capacity));
          const oldestId = kept[0]?.id ?? bus.lastId + 1;
          const want =
            step > bus.lastId
              ? { events: kept, reset: true, oldestId }
              : step === bus.lastId
                ? { events: [], reset: false, oldestId }
                : { events: kept.filter((e) => e.id > step), reset: step + 1 < oldestId, oldestId };
          assert.deepEqual(bus.since(step), want);
        }
      },
    ),
  );
});

test('a listener added or removed while an event is being delivered takes effect from the next event', () => {
  const bus = new EventBus(10);
  const seen: string[] = [];
  let offB: () => void = () => {};
  const b = (e: RuntimeEvent) => seen.push(`b${e.id}`);
  const offA = bus.subscribe((e) => {
    seen.push(`a${e.id}`);
    if (e.id === 1) offB = bus.subscribe(b);
    if (e.id === 2) offB();
  });
  bus.publish(null, { type: 'session_closed' });
  bus.publish(null, { type: 'session_closed' });
  bus.publish(null, { type: 'session_closed' });
  offA();
  bus.publish(null, { type: 'session_closed' });
  assert.deepEqual(seen, ['a1', 'a2', 'b2', 'a3']);
});
