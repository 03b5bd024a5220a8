/**
 * Client of the AI Phone Server (Android app, port 8005): on-device LLM text generation, model
 * downloads, object detection, camera capture, compass. Replies are JSON; a reply saying
 * `success: false` is an error even under HTTP 200. Time limits are per endpoint, long enough
 * for on-device inference (model load up to 60 s plus generation up to 300 s) and for downloads,
 * which the server performs before it answers. Text generations from one client are sent one
 * at a time (the app keeps one model session and does not lock it). Nothing is retried.
 */
import { InvalidArgumentError, ServiceFailureError, ServiceHttpError, ServiceProtocolError, type RequestInfo } from '../errors.js';
import { checkTimeout, Transport, type Reply } from '../http.js';
import { resolveModel } from './models.js';
import type {
  CameraSide,
  CaptureRequest,
  CaptureResult,
  DetectionReply,
  DetectRequest,
  DeviceHelp,
  DeviceStatus,
  DownloadReply,
  ModelInfo,
  Orientation,
  TextReply,
  TextRequest,
} from './types.js';

export const DEFAULT_DEVICE_URL = 'http://127.0.0.1:8005';

export interface DeviceTimeouts {
  status: number;
  help: number;
  models: number;
  orientation: number;
  capture: number;
  detect: number;
  text: number;
  download: number;
}

/** Milliseconds per endpoint. */
export const DEFAULT_DEVICE_TIMEOUTS: Readonly<DeviceTimeouts> = {
  status: 10_000,
  help: 10_000,
  models: 10_000,
  orientation: 10_000,
  capture: 60_000,
  detect: 60_000,
  text: 600_000,
  download: 3_600_000,
};

export interface DeviceClientOptions {
  url?: string;
  timeouts?: Partial<DeviceTimeouts>;
}

type Json = Record<string, unknown>;

export class DeviceClient {
  readonly url: string;
  readonly timeouts: Readonly<DeviceTimeouts>;
  private readonly transport: Transport;
  private textQueue: Promise<unknown> = Promise.resolve();

  constructor(options: DeviceClientOptions = {}) {
    this.transport = new Transport('device service', options.url ?? DEFAULT_DEVICE_URL, {
      refused: (base) =>
        `the device service at ${base} is not reachable (connection refused): is the AI Phone Server app running on the phone, and is this its address (port 8005)?`,
      refusedAfterContact: (base) =>
        `the device service at ${base} answered before but now refuses connections: the app's server has stopped (it restarts itself within seconds; try again)`,
    });
    this.url = this.transport.base.href;
    const timeouts = { ...DEFAULT_DEVICE_TIMEOUTS, ...options.timeouts };
    for (const [k, v] of Object.entries(timeouts)) checkTimeout(v, `timeouts.${k}`);
    this.timeouts = timeouts;
  }

  /** Server state, permissions, AI state (GET /status). */
  async status(): Promise<DeviceStatus> {
    const body = await this.call('GET', 'status', this.timeouts.status);
    if (typeof body.status !== 'string') throw this.shapeError('GET /status', body, 'a "status" string');
    return body as DeviceStatus;
  }

  /** The server's own API description (GET /help). */
  async help(): Promise<DeviceHelp> {
    return (await this.call('GET', 'help', this.timeouts.help)) as DeviceHelp;
  }

  /** The model catalogue with availability on the phone (GET /ai/models). */
  async models(): Promise<ModelInfo[]> {
    const body = await this.call('GET', 'ai/models', this.timeouts.models);
    const models = body.models;
    if (!Array.isArray(models) || !models.every((m) => isObject(m) && typeof m.name === 'string' && typeof m.available === 'boolean')) {
      throw this.shapeError('GET /ai/models', body, 'a "models" list of {name, available, …}');
    }
    return models as ModelInfo[];
  }

  /**
   * Downloads a model to the phone (id or display name). The server answers only when the
   * transfer is over; gated models are refused (HTTP 400 AUTH_REQUIRED) and must be installed in
   * the app. `status` is already_available or download_started (meaning: done).
   */
  async downloadModel(name: string): Promise<DownloadReply> {
    const model = resolveModel(name);
    const body = await this.call('POST', 'ai/models/download', this.timeouts.download, { json: { modelName: model.id } });
    if (typeof body.status !== 'string') throw this.shapeError('POST /ai/models/download', body, 'a "status" string');
    return body as DownloadReply;
  }

  /** Generates text on the phone. One generation at a time per client. */
  async text(request: TextRequest): Promise<TextReply> {
    const json = textBody(request);
    const run = () => this.generate(json);
    const result = this.textQueue.then(run, run);
    this.textQueue = result.catch(() => undefined);
    return result;
  }

  /** Captures a frame and detects objects in it; boxes are normalized to 0…1. */
  async detectObjects(request: DetectRequest = {}): Promise<DetectionReply> {
    const side = checkSide(request.side ?? 'rear');
    const threshold = request.threshold ?? 0.5;
    if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1) throw new InvalidArgumentError(`threshold ${threshold} is invalid: use a number from 0 to 1`);
    const maxResults = request.maxResults ?? 10;
    if (!Number.isInteger(maxResults) || maxResults < 1) throw new InvalidArgumentError(`maxResults ${maxResults} is invalid: use a positive whole number`);
    const returnImage = request.returnImage ?? false;
    const body = await this.call('POST', 'ai/object_detection', this.timeouts.detect, { json: { side, threshold, maxResults, returnImage } });
    if (!Array.isArray(body.objects)) throw this.shapeError('POST /ai/object_detection', body, 'an "objects" list');
    if (returnImage && (typeof body.image !== 'string' || !decodeDataUri(body.image))) {
      throw this.shapeError('POST /ai/object_detection', body, 'an "image" data URI (returnImage was set)');
    }
    return body as DetectionReply;
  }

  /** Compass orientation in degrees. */
  async orientation(): Promise<Orientation> {
    const body = await this.call('GET', 'orientation', this.timeouts.orientation);
    if (!['azimuth', 'pitch', 'roll'].every((k) => typeof body[k] === 'number')) {
      throw this.shapeError('GET /orientation', body, 'numbers azimuth, pitch, roll');
    }
    return body as Orientation;
  }

  /** Takes a photo (the app must be in the foreground) and returns its bytes. */
  async capture(request: CaptureRequest = {}): Promise<CaptureResult> {
    const query: Record<string, string> = { side: checkSide(request.side ?? 'rear') };
    if (request.zoom !== undefined) {
      if (!Number.isFinite(request.zoom) || request.zoom <= 0) throw new InvalidArgumentError(`zoom ${request.zoom} is invalid: use a positive number`);
      query.zoom = String(request.zoom);
    }
    const body = await this.call('GET', 'capture', this.timeouts.capture, { query });
    const decoded = typeof body.image === 'string' ? decodeDataUri(body.image) : undefined;
    if (!decoded) throw this.shapeError('GET /capture', body, 'an "image" data URI');
    return { image: decoded.bytes, mimeType: decoded.mimeType, metadata: isObject(body.metadata) ? body.metadata : {}, reply: body };
  }

  private async generate(json: Json): Promise<TextReply> {
    const body = await this.call('POST', 'ai/text', this.timeouts.text, { json });
    if (typeof body.response !== 'string' || typeof body.model !== 'string') {
      throw this.shapeError('POST /ai/text', body, 'a "response" string and a "model"');
    }
    return body as TextReply;
  }

  /** One request: status, JSON and `success` checked; every failure typed. */
  private async call(method: 'GET' | 'POST', path: string, timeoutMs: number, options: { json?: Json; query?: Record<string, string> } = {}): Promise<Json> {
    const reply = await this.transport.send(path, { method, timeoutMs, json: options.json, query: options.query, headers: { accept: 'application/json' } });
    const info: RequestInfo = { service: 'device service', request: `${method} /${path}` };
    const parsed = parseJson(reply.text);
    if (reply.status < 200 || reply.status > 299) throw this.httpError(info, reply, parsed);
    if (!isObject(parsed)) {
      throw new ServiceProtocolError(info, reply.text, `${this.where()}: ${info.request} answered something that is not a JSON object: ${JSON.stringify(reply.text.slice(0, 200))}`);
    }
    if (parsed.success === false) {
      const why = firstString(parsed.error, parsed.message, parsed.details) ?? 'no reason given';
      throw new ServiceFailureError(info, parsed, `${this.where()}: ${info.request} failed: ${oneLine(why)}`);
    }
    return parsed;
  }

  private httpError(info: RequestInfo, reply: Reply, parsed: unknown): ServiceHttpError {
    const body = isObject(parsed) ? parsed : undefined;
    const code = typeof body?.code === 'string' ? body.code : undefined;
    let text = `${this.where()}: ${info.request} answered HTTP ${reply.status}${code ? ` ${code}` : ''}`;
    const error = firstString(body?.error, body?.message);
    const detail = firstString(body?.details, body?.description);
    if (error) text += `: ${oneLine(error)}`;
    if (detail && detail !== error) text += ` (${oneLine(detail)})`;
    if (!body && reply.text.trim() !== '') text += `: ${oneLine(reply.text)}`;
    if (reply.status === 403) text += ' — a permission is missing on the phone: grant it in the AI Phone Server app';
    else if ((reply.status === 404 || reply.status === 405) && reply.text.trim() === '') text += ' — this app version has no such endpoint';
    else if (code === 'MODEL_NOT_AVAILABLE') text += ' — download the model first';
    return new ServiceHttpError(info, reply.status, reply.text, parsed, code, text);
  }

  private shapeError(request: string, body: Json, expected: string): ServiceProtocolError {
    const text = JSON.stringify(body);
    return new ServiceProtocolError({ service: 'device service', request }, text, `${this.where()}: unexpected reply to ${request} (expected ${expected}): ${text.slice(0, 200)}`);
  }

  private where(): string {
    return `device service at ${this.transport.base.origin}`;
  }
}

/** Splits a `data:<mime>;base64,<data>` URI into bytes and type; undefined if it is not one. */
export function decodeDataUri(uri: string): { bytes: Uint8Array; mimeType: string } | undefined {
  const m = /^data:([^;,]+)(?:;[^;,]+)*;base64,([A-Za-z0-9+/=\s]*)$/.exec(uri);
  if (!m || m[2]!.replace(/\s/g, '') === '') return undefined;
  return { bytes: new Uint8Array(Buffer.from(m[2]!, 'base64')), mimeType: m[1]! };
}

function textBody(request: TextRequest): Json {
  if (typeof request.text !== 'string' || request.text.trim() === '') throw new InvalidArgumentError('the prompt text is empty');
  const model = resolveModel(request.model);
  const body: Json = { text: request.text, model: model.id };
  if (request.maxTokens !== undefined) {
    if (!Number.isInteger(request.maxTokens) || request.maxTokens < 1) throw new InvalidArgumentError(`maxTokens ${request.maxTokens} is invalid: use a positive whole number`);
    body.maxTokens = request.maxTokens;
  }
  const imageInput = request.image !== undefined || request.captureConfig !== undefined;
  if (imageInput && !model.vision) {
    // The server would quietly run text-only with a note appended; say so instead.
    throw new InvalidArgumentError(`model ${model.id} (${model.displayName}) does not take images; only GEMMA_3_1B_IT does`);
  }
  if (request.image !== undefined && request.captureConfig !== undefined) {
    throw new InvalidArgumentError('give either an image or captureConfig (take a photo), not both');
  }
  if (request.image !== undefined) body.image = rawBase64(request.image);
  if (request.captureConfig !== undefined) {
    const camera = checkSide(request.captureConfig.camera ?? 'rear');
    body.captureConfig = { ...request.captureConfig, camera };
  }
  return body;
}

/** The server decodes plain base64 only: bytes are encoded, a data: URI prefix is dropped. */
function rawBase64(image: Uint8Array | string): string {
  if (typeof image !== 'string') {
    if (image.length === 0) throw new InvalidArgumentError('the image is empty');
    return Buffer.from(image.buffer, image.byteOffset, image.byteLength).toString('base64');
  }
  const data = image.replace(/^data:[^,]*;base64,/, '').replace(/\s/g, '');
  if (data === '' || data.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) {
    throw new InvalidArgumentError('the image string is not base64 (pass bytes, base64 or a base64 data: URI)');
  }
  return data;
}

function checkSide(side: string): CameraSide {
  if (side !== 'rear' && side !== 'front') throw new InvalidArgumentError(`camera side ${JSON.stringify(side)} is invalid: use rear or front`);
  return side;
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function firstString(...values: unknown[]): string | undefined {
  return values.find((v): v is string => typeof v === 'string' && v.trim() !== '');
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 400 ? `${flat.slice(0, 400)}…` : flat;
}
