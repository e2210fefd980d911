import type { Summary } from '../support/measurement';
import type { BenchSettings } from '../support/settings';

export interface GrpcResults {
  baseline: Summary;
  subject: Summary;
}

/** gRPC CreateShortLink against a bare grpc-js echo (filled in once the gateway exists). */
export function runGrpcScenario(
  _seedFile: string,
  _settings: BenchSettings,
  _log: (line: string) => void,
): Promise<GrpcResults | null> {
  return Promise.resolve(null);
}
