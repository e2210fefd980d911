import { experimental, logVerbosity, setLogVerbosity } from '@grpc/grpc-js';
import { sendGrpcJsLogsTo } from '../../gateway-grpc/grpc-js-logs';
import { captureLogs } from '../support/log-capture';

describe("grpc-js's own messages", () => {
  it('are JSON lines of the service log at their severity, tagged component grpc-js', () => {
    const logs = captureLogs();
    sendGrpcJsLogsTo(logs.logger);
    experimental.log(logVerbosity.ERROR, 'No address added out of total %d resolved', 1);
    expect(logs.records()).toEqual([
      expect.objectContaining({
        level: 50,
        component: 'grpc-js',
        msg: 'No address added out of total 1 resolved',
      }),
    ]);
  });

  it("carry no token when a call trace prints the call's metadata", () => {
    const logs = captureLogs();
    sendGrpcJsLogsTo(logs.logger);
    // What grpc-js's server_call trace (GRPC_TRACE=server_call) prints for each call.
    const metadata = {
      'user-agent': ['grpc-node-js/1.14'],
      authorization: ['Bearer slpat_secret"],[00000000000000000000', 'Bearer second'],
      'idempotency-key': ['retry-1'],
    };
    setLogVerbosity(logVerbosity.DEBUG); // as GRPC_VERBOSITY=DEBUG sets it
    try {
      experimental.log(
        logVerbosity.DEBUG,
        `Request to /shortlink.v1.ShortLinkService/CreateShortLink received headers ${JSON.stringify(metadata)}`,
      );
    } finally {
      setLogVerbosity(logVerbosity.ERROR); // grpc-js's default
    }
    const text = logs.text();
    expect(text).not.toContain('slpat_secret');
    expect(text).not.toContain('second');
    const [record] = logs.records();
    expect(record?.msg).toBe(
      'Request to /shortlink.v1.ShortLinkService/CreateShortLink received headers ' +
        '{"user-agent":["grpc-node-js/1.14"],"authorization":["[redacted]"],"idempotency-key":["retry-1"]}',
    );
  });

  it('carry no token when grpc-js drops an authorization value it cannot hold', () => {
    const logs = captureLogs();
    sendGrpcJsLogsTo(logs.logger);
    // What grpc-js (Metadata.fromHttp2Headers) logs at ERROR, its default verbosity, for a value
    // with a non-ASCII character, such as a token pasted with a trailing no-break space.
    const value = 'Bearer slpat_secret\u00a0';
    experimental.log(
      logVerbosity.ERROR,
      `Failed to add metadata entry authorization: ${value}. Metadata string value "${value}" ` +
        'contains illegal characters. For more information see https://github.com/grpc/grpc-node/issues/1173',
    );
    expect(logs.text()).not.toContain('slpat_secret');
    expect(logs.records()).toEqual([
      expect.objectContaining({
        level: 50,
        component: 'grpc-js',
        msg: 'Failed to add metadata entry authorization: [redacted]',
      }),
    ]);
  });
});
