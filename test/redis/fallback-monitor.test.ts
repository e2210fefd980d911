import { FallbackMonitor } from '../../core/adapters/redis/fallback-monitor';
import { captureLogs } from '../support/log-capture';

function setup(initial: 'shared' | 'insurance' = 'shared') {
  const logs = captureLogs();
  const monitor = new FallbackMonitor(logs.logger, 'cache:6379', initial);
  const lines = () => logs.records().map((record) => [record.level, record.redis]);
  return { monitor, lines };
}

describe('FallbackMonitor: one log line per switch', () => {
  it('logs the first fallback and the return, once each, however many calls report them', () => {
    const { monitor, lines } = setup();
    const tickets = [monitor.begin(), monitor.begin(), monitor.begin()];
    for (const ticket of tickets) monitor.fellBack(ticket, new Error('down'));
    monitor.connectionLost();
    expect(monitor.mode).toBe('insurance');
    expect(lines()).toEqual([[40, 'cache:6379']]);

    const later = [monitor.begin(), monitor.begin()];
    for (const ticket of later) monitor.served(ticket);
    monitor.connectionReady();
    expect(monitor.mode).toBe('shared');
    expect(lines()).toEqual([
      [40, 'cache:6379'],
      [30, 'cache:6379'],
    ]);
  });

  it('ignores late answers to calls that started before the last switch', () => {
    const { monitor, lines } = setup();
    const early = monitor.begin();
    monitor.connectionLost();
    // Redis answered a call sent before the outage was noticed: no "back again".
    monitor.served(early);
    expect(monitor.mode).toBe('insurance');

    const during = monitor.begin();
    monitor.connectionReady();
    // The insurance limiter answered a call that started during the outage: no new warning.
    monitor.fellBack(during);
    expect(monitor.mode).toBe('shared');
    expect(lines()).toHaveLength(2);
  });

  it('says nothing once silenced (closing on purpose)', () => {
    const { monitor, lines } = setup();
    monitor.silence();
    monitor.connectionLost();
    monitor.connectionReady();
    expect(lines()).toEqual([]);
  });

  it('while falling back, lets one call at a time try Redis, at most once per interval', () => {
    const logs = captureLogs();
    const monitor = new FallbackMonitor(logs.logger, 'cache:6379', 'insurance', 1000);
    expect(monitor.admit(true, 0)).toBe('trial');
    expect(monitor.admit(true, 0)).toBe('insurance'); // the trial is still in flight
    monitor.trialDone(10);
    expect(monitor.admit(true, 500)).toBe('insurance');
    // Peeks never try: their "nothing counted" answer would not tell who gave it.
    expect(monitor.admit(false, 1010)).toBe('insurance');
    expect(monitor.admit(true, 1010)).toBe('trial');
    monitor.served(monitor.begin());
    expect(monitor.admit(false)).toBe('redis');
    expect(monitor.admit(true)).toBe('redis');
  });
});
