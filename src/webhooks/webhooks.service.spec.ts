import { BadRequestException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { EventRegistry } from '../events/event-registry';
import { WebhookAddressPolicy } from './webhook-address-policy';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

const TYPES = ['blog.created', 'comment.created', 'comment.deleted'];

describe('WebhooksService.register', () => {
  let service: WebhooksService;
  let webhooks: { create: jest.Mock };
  let addresses: { refusal: jest.Mock };

  beforeEach(async () => {
    webhooks = { create: jest.fn((url: string, events: string[]) => Promise.resolve({ id: 'w', url, events })) };
    addresses = { refusal: jest.fn().mockResolvedValue(null) };
    const registry = { has: (type: string) => TYPES.includes(type), types: () => [...TYPES] };
    const moduleRef = await Test.createTestingModule({
      providers: [
        WebhooksService,
        { provide: WebhooksRepository, useValue: webhooks },
        { provide: WebhookAddressPolicy, useValue: addresses },
        { provide: EventRegistry, useValue: registry },
      ],
    }).compile();
    service = moduleRef.get(WebhooksService);
  });

  it("accepts any registered type, another module's too", async () => {
    await service.register('https://example.com/', ['comment.created', 'blog.created']);

    expect(webhooks.create).toHaveBeenCalledWith(
      'https://example.com/',
      ['comment.created', 'blog.created'],
      expect.stringMatching(/^whsec_/),
    );
  });

  it('refuses an unknown type with 400 listing the registered ones, before resolving the URL, storing nothing', async () => {
    const refused = service.register('https://example.com/', ['comment.read', 'blog.created', 'note.created']);
    const rule = 'must be one of blog.created, comment.created, comment.deleted';

    await expect(refused).rejects.toBeInstanceOf(BadRequestException);
    await expect(refused).rejects.toMatchObject({
      response: { message: [`events[0] ${rule}`, `events[2] ${rule}`] },
      errors: [
        { detail: `events[0] ${rule}`, pointer: '/events/0' },
        { detail: `events[2] ${rule}`, pointer: '/events/2' },
      ],
    });
    expect(addresses.refusal).not.toHaveBeenCalled();
    expect(webhooks.create).not.toHaveBeenCalled();
  });
});
