import { EventEmitter } from 'node:events';
import type { Metadata } from '@grpc/grpc-js';
import { status, type ServerUnaryCall, type StatusObject } from '@grpc/grpc-js';
import { ErrorCode, ShortlinkError } from '../../core';
import { peerAddressOf } from '../../gateway-grpc/call-context';
import { unary, type UnaryHandler } from '../../gateway-grpc/unary';
import { captureLogs } from '../support/log-capture';
import { waitUntil } from '../support/gated-url-guard';
import { metadataText } from '../support/grpc-fixture';

type Answer = [error: Partial<StatusObject> | null, value: unknown, trailers: Metadata | undefined];

/** What unary() reads of a call: `cancelled`, the 'cancelled' event and the peer. */
function fakeCall(cancelled = false) {
  return Object.assign(new EventEmitter(), {
    cancelled,
    getPeer: () => '127.0.0.1:50000',
  }) as unknown as ServerUnaryCall<unknown, unknown> & { cancelled: boolean };
}

/** Runs one call through unary() and collects every answer it gives. */
async function run(handler: UnaryHandler<unknown, unknown>, call = fakeCall()) {
  const logs = captureLogs();
  const answers: Answer[] = [];
  let handled = false;
  unary(
    'Test',
    (c, trailers) => {
      handled = true;
      return handler(c, trailers);
    },
    logs.logger,
  )(call, (error, value, trailers) => answers.push([error, value, trailers]));
  // Let the handler's promise settle (and anything it might wrongly answer later).
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  return { answers, handled, logs };
}

describe('unary(): every call is answered exactly once', () => {
  it('answers a resolved handler with its value and the trailers it set', async () => {
    const { answers } = await run((_call, trailers) => {
      trailers.set('x-ratelimit-remaining', '7');
      return Promise.resolve({ ok: true });
    });
    expect(answers).toHaveLength(1);
    const [error, value, trailers] = answers[0]!;
    expect(error).toBeNull();
    expect(value).toEqual({ ok: true });
    expect(metadataText(trailers!, 'x-ratelimit-remaining')).toBe('7');
  });

  it('answers a rejected ShortlinkError with its mapped status and code', async () => {
    const { answers } = await run(() =>
      Promise.reject(new ShortlinkError('ALIAS_TAKEN', ['taken.'])),
    );
    expect(answers).toHaveLength(1);
    const [error] = answers[0]!;
    expect(error).toMatchObject({ code: status.ALREADY_EXISTS, details: 'taken.' });
    expect(metadataText(error!.metadata!, 'shortlink-error-code')).toBe(
      String(ErrorCode.ALIAS_TAKEN),
    );
  });

  it.each([
    ['a rejected promise', () => Promise.reject(new TypeError('secret internals'))],
    [
      'a synchronous throw',
      () => {
        throw new RangeError('secret internals');
      },
    ],
  ])('answers %s with INTERNAL, logs it, and leaks nothing', async (_name, handler) => {
    const { answers, logs } = await run(handler);
    expect(answers).toHaveLength(1);
    const [error] = answers[0]!;
    expect(error).toMatchObject({
      code: status.INTERNAL,
      details: 'An unexpected error occurred.',
    });
    expect(metadataText(error!.metadata!, 'shortlink-error-code')).toBe(String(ErrorCode.INTERNAL));
    expect(logs.records().some((record) => record.msg === 'call failed')).toBe(true);
  });

  it('does not run the handler of a call that ended before it arrived', async () => {
    const { answers, handled, logs } = await run(() => Promise.resolve('late'), fakeCall(true));
    expect(handled).toBe(false);
    expect(answers).toEqual([]);
    expect(logs.records().map((record) => [record.msg, record.level])).toEqual([
      ['call aborted', 30],
    ]);
  });

  it("logs no cancellation for the 'cancelled' grpc-js emits when an answered call's stream closes", async () => {
    const call = fakeCall();
    const { answers, logs } = await run(() => Promise.resolve('done'), call);
    expect(answers).toHaveLength(1);
    call.cancelled = true;
    call.emit('cancelled');
    expect(logs.records().map((record) => record.msg)).toEqual(['call completed']);
  });

  it('does not answer a call that ended while the handler ran', async () => {
    const call = fakeCall();
    let finish!: (value: string) => void;
    const pending = run(() => new Promise<string>((resolve) => (finish = resolve)), call);
    await waitUntil(() => finish !== undefined, 'the handler started');
    call.cancelled = true;
    call.emit('cancelled');
    finish('late');
    const { answers, logs } = await pending;
    expect(answers).toEqual([]);
    expect(logs.records().map((record) => record.msg)).toEqual([
      'call cancelled by deadline or client',
      'call aborted',
    ]);
    const aborted = logs.records().find((record) => record.msg === 'call aborted');
    // Logged where the access log goes (info), with no status: the client was sent none of ours.
    expect(aborted).toMatchObject({ level: 30, method: expect.any(String) });
    expect(aborted).not.toHaveProperty('code');
  });
});

describe('peerAddressOf(call.getPeer())', () => {
  it.each([
    ['127.0.0.1:50123', '127.0.0.1'],
    ['::1:50123', '::1'],
    ['[::1]:50123', '::1'],
    ['::ffff:10.0.0.2:443', '::ffff:10.0.0.2'],
    ['/run/shortlink.sock', '/run/shortlink.sock'],
    ['unknown', undefined],
  ])('%s is the address %s', (peer, address) => {
    expect(peerAddressOf(peer)).toBe(address);
  });
});
