import { createServer, IncomingHttpHeaders } from 'node:http';
import { AddressInfo } from 'node:net';
import { ProviderWebhookEvent, providerWebhookEventSchema } from '@shop/provider';
import { Webhook } from 'svix';

export interface ReceivedDelivery {
  svixId: string;
  timestamp: string;
  signature: string;
  event: ProviderWebhookEvent;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedDelivery[];
  /** Deliveries whose signature did not verify; a correct sender never produces one. */
  rejected: string[];
  close(): Promise<void>;
}

/**
 * A receiver like the gateway's: verifies the raw body with svix before trusting it, then
 * answers with whatever status the test asks for.
 */
export async function startWebhookReceiver(
  secret: string,
  statusFor: (delivery: ReceivedDelivery, earlierWithSameId: number) => number = () => 204,
): Promise<WebhookReceiver> {
  const verifier = new Webhook(secret);
  const received: ReceivedDelivery[] = [];
  const rejected: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      try {
        verifier.verify(raw, headerRecord(request.headers));
      } catch (error) {
        rejected.push(String(error));
        response.writeHead(400).end();
        return;
      }
      const delivery: ReceivedDelivery = {
        svixId: String(request.headers['svix-id']),
        timestamp: String(request.headers['svix-timestamp']),
        signature: String(request.headers['svix-signature']),
        event: providerWebhookEventSchema.parse(JSON.parse(raw)),
      };
      const earlier = received.filter((candidate) => candidate.svixId === delivery.svixId).length;
      received.push(delivery);
      response.writeHead(statusFor(delivery, earlier)).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/webhooks/provider`,
    received,
    rejected,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function headerRecord(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])),
  );
}
