import { ConfigError, loadConfig } from '../../../core/runtime';
import { loadGrpcConfig } from '../../../gateway-grpc/grpc-config';
import { loadHttpConfig } from '../../../gateway-http/http-config';

/**
 * A number setting that is set but empty (`PORT=` in an env file, `PORT=${PORT}` with the
 * variable unset) is refused naming the variable. Coerced, it read as 0: the REST or gRPC port
 * became a random one (and the demo's link domain with it), and metrics or a cache were turned off.
 */
describe('number settings set to an empty value', () => {
  it.each(['METRICS_PORT', 'LINK_CACHE_SIZE', 'IDENTITY_CACHE_TTL_SECONDS', 'SHUTDOWN_TIMEOUT_MS'])(
    '%s is refused, naming the variable',
    (name) => {
      for (const value of ['', '  ']) {
        const refused = () => loadConfig({ [name]: value });
        expect(refused).toThrow(ConfigError);
        expect(refused).toThrow(
          `invalid configuration: ${name}: is set but empty (give a number, or unset it for its default)`,
        );
      }
    },
  );

  it('refuses an empty PORT and GRPC_PORT instead of listening on a random port', () => {
    expect(() => loadHttpConfig({ PORT: '' })).toThrow(/PORT: is set but empty/);
    expect(() => loadGrpcConfig({ GRPC_PORT: '' })).toThrow(/GRPC_PORT: is set but empty/);
  });

  it('names every problem once, an empty number beside another mistake', () => {
    expect(() => loadConfig({ METRICS_PORT: '', LOG_LEVEL: 'loud' })).toThrow(
      /^invalid configuration: METRICS_PORT: is set but empty [^;]*; LOG_LEVEL: /,
    );
  });

  it('still takes 0 where 0 is meant, and an empty text setting as unset', () => {
    expect(loadConfig({ METRICS_PORT: '0', LINK_CACHE_SIZE: '0' })).toMatchObject({
      METRICS_PORT: 0,
      LINK_CACHE_SIZE: 0,
    });
    expect(loadConfig({ MONGODB_URI: '', REDIS_URL: ' ' })).toMatchObject({
      MONGODB_URI: undefined,
      REDIS_URL: undefined,
    });
  });
});
