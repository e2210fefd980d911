import { parseArgs } from 'node:util';
import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { describeFailure } from './call-failure';
import { registryThroughReflection, ReflectionError } from './reflection-registry';
import { callUnary, CallUsageError, findUnaryMethod, splitMethodName } from './unary-call';

const SERVICE = 'shortlink.v1.ShortLinkService';
const DEFAULT_PORT = '50051';

const USAGE = `usage: npm run grpc -- <method> ['<json body>'] [options]

Calls a method of ${SERVICE} (or <package.Service>/<Method> of another service of the server)
through the server's reflection, with the request as JSON (proto3 JSON: organization_key or
organizationKey). Prints the answer as JSON; on a failure prints the status, the service's code,
reason and message as JSON on stderr and exits with 1 (2: the call could not be made as asked).

options:
  --address <host:port>  the gRPC server (default 127.0.0.1:$GRPC_PORT, or 127.0.0.1:${DEFAULT_PORT})
  --token <token>        sends "authorization: Bearer <token>" (default: $SHORTLINK_TOKEN, if set)
  --header '<name>: <value>'  another metadata field (idempotency-key, say); may be repeated
  --timeout <seconds>    the call's deadline (default 10)
  --help                 this text

example: npm run grpc -- ResolveShortLink '{"domain":"localhost:8080","alias":"hello"}'`;

function commandLine(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      address: { type: 'string' },
      token: { type: 'string' },
      header: { type: 'string', multiple: true },
      timeout: { type: 'string', default: '10' },
      help: { type: 'boolean' },
    },
  });
  const [method, body = '{}', ...rest] = positionals;
  if (values.help) return { help: true as const };
  if (method === undefined) throw new CallUsageError('which method? (--help lists the options)');
  if (rest.length > 0) throw new CallUsageError(`unexpected arguments: ${rest.join(' ')}`);
  const timeout = Number(values.timeout);
  if (!(timeout > 0)) throw new CallUsageError('--timeout must be a number of seconds above 0');
  const metadata = new Metadata();
  for (const header of values.header ?? []) {
    const colon = header.indexOf(':');
    if (colon <= 0) throw new CallUsageError(`--header "${header}" is not "<name>: <value>"`);
    metadata.add(header.slice(0, colon).trim().toLowerCase(), header.slice(colon + 1).trim());
  }
  const token = values.token ?? process.env.SHORTLINK_TOKEN;
  if (token) metadata.set('authorization', `Bearer ${token}`);
  return {
    help: false as const,
    method,
    body,
    metadata,
    address: values.address ?? `127.0.0.1:${process.env.GRPC_PORT || DEFAULT_PORT}`,
    deadline: new Date(Date.now() + timeout * 1000),
  };
}

async function main(argv: string[]): Promise<number> {
  const line = commandLine(argv);
  if (line.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const { address, deadline } = line;
  const channel = credentials.createInsecure();
  const { service, method } = splitMethodName(line.method, SERVICE);
  const registry = await registryThroughReflection(address, channel, service, deadline);
  const answer = await callUnary({
    address,
    credentials: channel,
    registry,
    method: findUnaryMethod(registry, service, method),
    body: line.body,
    metadata: line.metadata,
    deadline,
  });
  process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
  return 0;
}

function isServiceError(error: unknown): error is ServiceError {
  return error instanceof Error && typeof (error as Partial<ServiceError>).code === 'number';
}

/** A command line node's parseArgs refused (an unknown option, a missing value). */
function isArgumentError(error: unknown): error is Error {
  const { code } = error as { code?: unknown };
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

main(process.argv.slice(2)).then(
  (exitCode) => (process.exitCode = exitCode),
  (error: unknown) => {
    if (isServiceError(error)) {
      process.stderr.write(`${JSON.stringify(describeFailure(error), null, 2)}\n`);
      process.exitCode = 1;
    } else if (
      error instanceof CallUsageError ||
      error instanceof ReflectionError ||
      isArgumentError(error)
    ) {
      process.stderr.write(`grpc: ${error.message}\n`);
      process.exitCode = 2;
    } else {
      throw error;
    }
  },
);
