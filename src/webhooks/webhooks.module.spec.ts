import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { jobsConfig } from '../config/jobs.config';
import { loggingConfig } from '../config/logging.config';
import { ALLOWED_HOSTS_HINT, WebhookAddressPolicy } from './webhook-address-policy';
import { addressPolicyProvider } from './webhooks.module';

describe('WebhookAddressPolicy provider', () => {
  afterEach(() => jest.restoreAllMocks());

  /** The policy as WebhooksModule provides it for `NODE_ENV` and `WEBHOOK_ALLOWED_HOSTS`, and the warnings logged. */
  async function provide(
    nodeEnv: string,
    hosts: string[],
  ): Promise<{ policy: WebhookAddressPolicy; warned: string[] }> {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const moduleRef = await Test.createTestingModule({
      providers: [
        { provide: jobsConfig.KEY, useValue: { enabled: true, webhookAllowedHosts: hosts } },
        { provide: loggingConfig.KEY, useValue: { level: 'info', nodeEnv } },
        addressPolicyProvider,
      ],
    }).compile();
    return { policy: moduleRef.get(WebhookAddressPolicy), warned: warn.mock.calls.map(([message]) => String(message)) };
  }

  it('warns once at start-up in production, naming WEBHOOK_ALLOWED_HOSTS and its hosts', async () => {
    const { warned } = await provide('production', ['localhost', '::1']);

    expect(warned).toEqual([expect.stringMatching(/^WEBHOOK_ALLOWED_HOSTS lets localhost, ::1 receive webhooks/)]);
  });

  it.each([
    ['production without allowed hosts', 'production', []],
    ['development with allowed hosts', 'development', ['localhost']],
  ])('does not warn in %s', async (_name, nodeEnv, hosts) => {
    expect((await provide(nodeEnv, hosts)).warned).toEqual([]);
  });

  it.each([
    ['development', true],
    ['test', true],
    ['production', false],
  ])('in %s, a 400 refusing a loopback address names WEBHOOK_ALLOWED_HOSTS: %s', async (nodeEnv, hinted) => {
    const { policy } = await provide(nodeEnv, []);

    expect((await policy.refusal('https://127.0.0.1/'))?.includes(ALLOWED_HOSTS_HINT)).toBe(hinted);
  });
});
