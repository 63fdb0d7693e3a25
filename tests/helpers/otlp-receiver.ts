import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as OTLP/JSON carries it (ids in hex), with the service that sent it. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  status?: { code?: number; message?: string };
}

export interface OtlpReceiver {
  /** The base address, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  url: string;
  /** Every export request as received: its content type and raw body (protobuf or JSON). */
  exports: { contentType: string; body: Buffer }[];
  /** The spans of the JSON exports so far. */
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

interface JsonAttribute { key: string; value: Record<string, unknown> }
interface JsonSpan {
  traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number;
  attributes?: JsonAttribute[]; links?: { traceId: string; spanId: string }[]; status?: { code?: number; message?: string };
}
interface JsonExport {
  resourceSpans?: { resource?: { attributes?: JsonAttribute[] }; scopeSpans?: { spans?: JsonSpan[] }[] }[];
}

/** A collector's OTLP/HTTP traces endpoint (`/v1/traces`) in the test process: keeps what arrives, answers 200. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: OtlpReceiver['exports'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces') exports.push({ contentType: String(req.headers['content-type']), body: Buffer.concat(chunks) });
      const json = String(req.headers['content-type']).startsWith('application/json');
      res.writeHead(200, { 'Content-Type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    spans: () => exports.filter((e) => e.contentType.startsWith('application/json')).flatMap((e) => spansOf(JSON.parse(e.body.toString('utf8')) as JsonExport)),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function spansOf(body: JsonExport): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((rs) => {
    const service = String(attributesOf(rs.resource?.attributes)['service.name']);
    return (rs.scopeSpans ?? []).flatMap((ss) => (ss.spans ?? []).map((s) => ({
      service, traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, name: s.name, kind: s.kind,
      attributes: attributesOf(s.attributes), links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })), status: s.status,
    })));
  });
}

function attributesOf(list: JsonAttribute[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, Object.values(a.value)[0]]));
}
