/**
 * Client of the AI Phone Server (Android app, port 8005): on-device LLM text generation, model
 * downloads, uploads and deletion, object detection, camera capture, compass, GPS, full-screen
 * text, diagnostics. Replies are JSON; a reply saying
 * `success: false` is an error even under HTTP 200. Time limits are per endpoint, long enough
 * for on-device inference (model load up to 60 s plus generation up to 300 s) and for downloads,
 * which the server performs before it answers. Text generations to one phone are sent one at
 * a time from this process, across clients (the app keeps one model session and does not lock
 * it). Only the GET reads (status, help, models, orientation, capture, location, diagnostics …)
 * are retried, and only after a refused or reset connection with no reply; generations,
 * downloads, uploads, deletions, cleanups, displays and detections never are.
 */
import { InvalidArgumentError, ModelMismatchError, ServiceFailureError, ServiceHttpError, ServiceProtocolError, type RequestInfo } from '../errors.js';
import { checkCallOptions, checkFields, checkTimeout, describeValue, isObject, Transport, type Reply } from '../http.js';
import { MODELS, resolveModel, type ModelSpec } from './models.js';
import type {
  CameraSide,
  CaptureRequest,
  CaptureResult,
  DetectionReply,
  DetectRequest,
  DeviceHealth,
  DeviceBanner,
  DeviceCapabilities,
  DisplayReply,
  DisplayRequest,
  ModelCleanup,
  ModelStorage,
  UploadReply,
  UploadRequest,
  Location,
  ModelDiagnostics,
  ModelRemoval,
  DeviceHelp,
  DeviceStatus,
  DownloadReply,
  ImageScaling,
  LoadingStatus,
  ModelFileStatus,
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
  location: number;
  display: number;
  diagnostics: number;
  delete: number;
}

/** Milliseconds per endpoint, counted from when the request is sent. */
export const DEFAULT_DEVICE_TIMEOUTS: Readonly<DeviceTimeouts> = {
  status: 10_000,
  help: 10_000,
  models: 10_000,
  orientation: 10_000,
  capture: 60_000,
  detect: 60_000,
  text: 600_000,
  download: 3_600_000,
  location: 10_000,
  display: 10_000,
  diagnostics: 10_000,
  delete: 30_000,
};

export interface DeviceClientOptions {
  url?: string;
  timeouts?: Partial<DeviceTimeouts>;
}

/** Per-call options. */
export interface DeviceCallOptions {
  /**
   * Aborting it ends the call at once with ServiceAbortedError; a text generation still waiting
   * behind earlier ones is then never sent.
   */
  signal?: AbortSignal;
}

/** The `accuracy` values of /orientation. */
export const ORIENTATION_ACCURACY = ['HIGH', 'MEDIUM', 'LOW', 'UNKNOWN'] as const;
/** The `status` values of a successful download. */
const DOWNLOAD_DONE = new Set(['already_available', 'download_started']);

type Json = Record<string, unknown>;

/**
 * The generations of this process per phone (base URL), one at a time: the app keeps one model
 * session and does not lock it, so two DeviceClients of one phone must not overlap either.
 */
const textQueues = new Map<string, Promise<unknown>>();

/** The text of the reply each returned object was parsed from (see replyText). */
const replyTexts = new WeakMap<object, string>();

/**
 * The reply text an object returned by a DeviceClient call was parsed from, exactly as the phone
 * sent it (for the models() list: the whole /ai/models reply); undefined for any other value.
 * JSON.parse rounds integers beyond 2^53 and drops the app's escapes; this text keeps them.
 */
export function replyText(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? replyTexts.get(value) : undefined;
}

export class DeviceClient {
  readonly url: string;
  readonly timeouts: Readonly<DeviceTimeouts>;
  private readonly transport: Transport;

  constructor(options: DeviceClientOptions = {}) {
    if (!isObject(options as unknown)) throw new InvalidArgumentError(`options must be an object such as {url, timeouts}, got ${describeValue(options)}`);
    checkFields(options as Record<string, unknown>, ['url', 'timeouts'], 'DeviceClient options have');
    if (options.url !== undefined && typeof options.url !== 'string') {
      throw new InvalidArgumentError(`the device service URL must be a string such as http://192.168.1.20:8005, got ${describeValue(options.url)}`);
    }
    this.transport = new Transport('device service', options.url ?? DEFAULT_DEVICE_URL, {
      refused: (base) =>
        `the device service at ${base} is not reachable (connection refused): is the AI Phone Server app running on the phone, and is this its address (port 8005)?`,
      refusedAfterContact: (base) =>
        `the device service at ${base} answered before but now refuses connections: the app's server has stopped (it restarts itself within seconds; try again)`,
    }, undefined, 'http://192.168.1.20:8005');
    this.url = this.transport.base.href;
    if (options.timeouts !== undefined && !isObject(options.timeouts as unknown)) throw new InvalidArgumentError(`timeouts must be an object, got ${describeValue(options.timeouts)}`);
    const timeouts = { ...DEFAULT_DEVICE_TIMEOUTS };
    if (options.timeouts !== undefined) checkFields(options.timeouts as Record<string, unknown>, Object.keys(DEFAULT_DEVICE_TIMEOUTS), 'timeouts has');
    // A limit given as undefined is no limit given: the endpoint's default stays.
    for (const [k, v] of Object.entries(options.timeouts ?? {})) if (v !== undefined) timeouts[k as keyof DeviceTimeouts] = v;
    for (const [k, v] of Object.entries(timeouts)) checkTimeout(v, `timeouts.${k}`);
    this.timeouts = timeouts;
  }

  /** Server state, permissions, AI state (GET /status). */
  async status(options: DeviceCallOptions = {}): Promise<DeviceStatus> {
    const body = await this.call('GET', 'status', 'status', { signal: checkCallOptions(options), retry: true });
    if (typeof body.status !== 'string') throw this.shapeError(this.request('GET', 'status'), body, 'a "status" string');
    const notObject = ['ai', 'permissions', 'features'].find((k) => body[k] !== undefined && !isObject(body[k]));
    if (notObject) throw this.shapeError(this.request('GET', 'status'), body, `"${notObject}" an object, got ${describeValue(body[notObject])}`);
    return body as DeviceStatus;
  }

  /** Liveness (GET /health): `status` must be `healthy`. Uses timeouts.status. */
  async health(options: DeviceCallOptions = {}): Promise<DeviceHealth> {
    const body = await this.call('GET', 'health', 'status', { signal: checkCallOptions(options), retry: true });
    if (body.status !== 'healthy') throw this.shapeError(this.request('GET', 'health'), body, '"status": "healthy"');
    if (body.services !== undefined && !(isObject(body.services) && Object.values(body.services).every((v) => typeof v === 'string'))) {
      throw this.shapeError(this.request('GET', 'health'), body, '"services" an object of texts such as {"camera": "available"}');
    }
    return body as DeviceHealth;
  }

  /**
   * The file of one model on the phone (GET /ai/models/{id}/status; id or display name given,
   * the id sent): size, downloadStatus, whether it is loaded. A model not on the phone is HTTP 404
   * MODEL_NOT_DOWNLOADED. Polling it is how to follow a download started elsewhere. Uses timeouts.status.
   */
  async modelStatus(name: string, options: DeviceCallOptions = {}): Promise<ModelFileStatus> {
    const model = resolveModel(name);
    const path = `ai/models/${model.id}/status`;
    const body = await this.call('GET', path, 'status', { signal: checkCallOptions(options), retry: true, model });
    if (typeof body.downloadStatus !== 'string') throw this.shapeError(this.request('GET', path), body, 'a "downloadStatus" string');
    return body as ModelFileStatus;
  }

  /** Whether a model is being loaded (GET /ai/models/loading-status; the app allows 60 s). Uses timeouts.status. */
  async loadingStatus(options: DeviceCallOptions = {}): Promise<LoadingStatus> {
    const body = await this.call('GET', 'ai/models/loading-status', 'status', { signal: checkCallOptions(options), retry: true });
    if (typeof body.isLoading !== 'boolean') throw this.shapeError(this.request('GET', 'ai/models/loading-status'), body, 'an "isLoading" true or false');
    const notNumber = ['elapsedTime', 'timeoutTime', 'progressPercentage'].find((k) => body[k] !== undefined && (typeof body[k] !== 'number' || !Number.isFinite(body[k])));
    if (notNumber) throw this.shapeError(this.request('GET', 'ai/models/loading-status'), body, `"${notNumber}" a number, got ${shown(body[notNumber])}`);
    return body as LoadingStatus;
  }

  /** The server's own API description (GET /help). */
  async help(options: DeviceCallOptions = {}): Promise<DeviceHelp> {
    const body = await this.call('GET', 'help', 'help', { signal: checkCallOptions(options), retry: true });
    const endpoints = body.endpoints;
    if (endpoints !== undefined && !(isObject(endpoints) && Object.values(endpoints).every((e) => isObject(e) && (e.description === undefined || typeof e.description === 'string')))) {
      throw this.shapeError(this.request('GET', 'help'), body, '"endpoints" an object of {description, …} per endpoint');
    }
    return body as DeviceHelp;
  }

  /** The model catalogue with availability on the phone (GET /ai/models). */
  async models(options: DeviceCallOptions = {}): Promise<ModelInfo[]> {
    const body = await this.call('GET', 'ai/models', 'models', { signal: checkCallOptions(options), retry: true });
    const models = body.models;
    if (!Array.isArray(models) || !models.every((m) => isObject(m) && typeof m.name === 'string' && typeof m.displayName === 'string' && typeof m.available === 'boolean')) {
      throw this.shapeError(this.request('GET', 'ai/models'), body, 'a "models" list of {name, displayName, available, …}');
    }
    replyTexts.set(models, replyTexts.get(body)!);
    return models as ModelInfo[];
  }

  /**
   * Downloads a model to the phone (id or display name). The server answers only when the
   * transfer is over; gated models are refused (HTTP 400 AUTH_REQUIRED) and must be installed in
   * the app. `status` is already_available or download_started (meaning: done); any other status
   * is an error, and so is a reply naming another model.
   */
  async downloadModel(name: string, options: DeviceCallOptions = {}): Promise<DownloadReply> {
    const model = resolveModel(name);
    const request = this.request('POST', 'ai/models/download');
    const body = await this.call('POST', 'ai/models/download', 'download', { signal: checkCallOptions(options), json: { modelName: model.id }, model });
    this.requireSuccess(request, body);
    const info: RequestInfo = { service: 'device service', request };
    if (body.status === 'auth_required') {
      // The form the app's /help documents; the code answers 400 AUTH_REQUIRED. Same meaning.
      throw new ServiceFailureError(info, body, `${this.where()}: ${request} failed: ${gatedAdvice(model)}`);
    }
    if (typeof body.status !== 'string' || !DOWNLOAD_DONE.has(body.status)) {
      throw this.shapeError(request, body, 'a "status" of already_available or download_started');
    }
    if (body.modelName !== undefined && body.modelName !== model.displayName && body.modelName !== model.id) {
      throw this.mismatch(request, body, model, typeof body.modelName === 'string' ? body.modelName : shown(body.modelName), 'downloaded');
    }
    return body as DownloadReply;
  }

  /**
   * Generates text on the phone. One generation at a time per phone (every DeviceClient of this
   * process with the same URL): a call waits for the
   * earlier ones, and its time limit (timeouts.text) counts from when it is sent. A reply from
   * another model than the one asked for is a ModelMismatchError.
   */
  async text(request: TextRequest, options: DeviceCallOptions = {}): Promise<TextReply> {
    const { json, model } = textBody(request);
    const signal = checkCallOptions(options);
    const info: RequestInfo = { service: 'device service', request: this.request('POST', 'ai/text') };
    if (signal?.aborted) throw this.transport.abortedBeforeSending(info, signal);
    const queuedAt = performance.now();
    let started = false;
    const run = (): Promise<TextReply> => {
      started = true;
      const queuedMs = performance.now() - queuedAt;
      if (signal?.aborted) throw this.transport.abortedBeforeSending(info, signal, ` while it waited ${Math.round(queuedMs)} ms behind earlier generations`);
      return this.generate(json, model, signal, queuedMs);
    };
    const key = this.transport.base.href;
    const result = (textQueues.get(key) ?? Promise.resolve()).then(run, run);
    const tail = result.catch(() => undefined);
    textQueues.set(key, tail);
    // The last in line clears the entry, so the map holds only phones with generations pending.
    void tail.then(() => {
      if (textQueues.get(key) === tail) textQueues.delete(key);
    });
    if (!signal) return result;
    // Give up at once when the signal fires while waiting in the queue (the queued run then sends nothing).
    return new Promise<TextReply>((resolve, reject) => {
      const onAbort = (): void => {
        // Once sent, the transport ends the request and reports the abort itself.
        if (!started) reject(this.transport.abortedBeforeSending(info, signal, ` while it waited ${Math.round(performance.now() - queuedAt)} ms behind earlier generations`));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      result.then(
        (r) => {
          signal.removeEventListener('abort', onAbort);
          resolve(r);
        },
        (e: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(e);
        },
      );
    });
  }

  /**
   * Captures a frame and detects objects in it; boxes are normalized to 0…1. Every object is
   * checked (category, score 0…1, box 0…1); a reply without `success: true` is an error.
   */
  async detectObjects(request: DetectRequest = {}, options: DeviceCallOptions = {}): Promise<DetectionReply> {
    if (!isObject(request as unknown)) throw new InvalidArgumentError(`a detection request is an object {side?, zoom?, threshold?, maxResults?, returnImage?, imageScaling?}, got ${describeValue(request)}`);
    checkFields(request as Record<string, unknown>, ['side', 'zoom', 'threshold', 'maxResults', 'returnImage', 'imageScaling'], 'a detection request has');
    const side = checkSide(request.side ?? 'rear');
    const threshold = request.threshold ?? 0.5;
    if (typeof threshold !== 'number') throw new InvalidArgumentError(`threshold must be a number from 0 to 1, got ${describeValue(threshold)}`);
    if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1) throw new InvalidArgumentError(`threshold ${threshold} is invalid: use a number from 0 to 1`);
    const maxResults = request.maxResults ?? 10;
    checkInt32(maxResults, 'maxResults');
    const returnImage = request.returnImage ?? false;
    if (typeof returnImage !== 'boolean') throw new InvalidArgumentError(`returnImage must be true or false, got ${describeValue(returnImage)}`);
    const json: Json = { side, threshold, maxResults, returnImage };
    if (request.zoom !== undefined) json.zoom = checkZoom(request.zoom);
    if (request.imageScaling !== undefined) json.imageScaling = checkScaling(request.imageScaling);
    const req = this.request('POST', 'ai/object_detection');
    const body = await this.call('POST', 'ai/object_detection', 'detect', { signal: checkCallOptions(options), json });
    this.requireSuccess(req, body);
    // The app falls back to every default when it cannot read the request (threshold 0.5 among them).
    if (typeof body.threshold === 'number' && Math.abs(body.threshold - threshold) > 1e-6) {
      throw this.shapeError(
        req,
        body,
        `threshold ${threshold} as sent; the app answered for threshold ${body.threshold}, so it ignored the request (its side, maxResults and returnImage too)`,
      );
    }
    if (!Array.isArray(body.objects)) throw this.shapeError(req, body, 'an "objects" list');
    if (body.imageMetadata !== undefined && !isObject(body.imageMetadata)) throw this.shapeError(req, body, `"imageMetadata" an object, got ${describeValue(body.imageMetadata)}`);
    body.objects.forEach((o: unknown, i: number) => {
      const problem = detectedObjectProblem(o);
      if (problem) throw this.shapeError(req, body, `objects of {category, score 0…1, boundingBox 0…1}; object ${i + 1} ${problem}`);
    });
    if (returnImage && (typeof body.image !== 'string' || imageProblem(body.image) !== undefined)) {
      throw this.shapeError(req, body, `an "image" JPEG data URI (returnImage was set)${typeof body.image === 'string' ? `; ${imageProblem(body.image)}` : ''}`);
    }
    return body as DetectionReply;
  }

  /**
   * Compass orientation in degrees: azimuth 0…360, pitch and roll -180…180, accuracy HIGH,
   * MEDIUM, LOW or UNKNOWN (UNKNOWN with zeros before the phone's sensors have reported).
   */
  async orientation(options: DeviceCallOptions = {}): Promise<Orientation> {
    const request = this.request('GET', 'orientation');
    const body = await this.call('GET', 'orientation', 'orientation', { signal: checkCallOptions(options), retry: true });
    const angle = (k: string, lo: number, hi: number): void => {
      const v = body[k];
      if (typeof v !== 'number' || !Number.isFinite(v) || v < lo || v > hi) throw this.shapeError(request, body, `${k} a number of degrees from ${lo} to ${hi}, got ${shown(v)}`);
    };
    angle('azimuth', 0, 360);
    angle('pitch', -180, 180);
    angle('roll', -180, 180);
    if (body.timestamp !== undefined && (typeof body.timestamp !== 'number' || !Number.isFinite(body.timestamp) || body.timestamp < 0)) {
      throw this.shapeError(request, body, `timestamp a number of epoch milliseconds, got ${shown(body.timestamp)}`);
    }
    if (body.accuracy !== undefined && !(ORIENTATION_ACCURACY as readonly unknown[]).includes(body.accuracy)) {
      throw this.shapeError(request, body, `accuracy one of ${ORIENTATION_ACCURACY.join(', ')}, got ${shown(body.accuracy)}`);
    }
    return body as Orientation;
  }

  /** Takes a photo (the app must be in the foreground) and returns its bytes (an image/* type; JPEG checked). */
  async capture(request: CaptureRequest = {}, options: DeviceCallOptions = {}): Promise<CaptureResult> {
    if (!isObject(request as unknown)) throw new InvalidArgumentError(`a capture request is an object {side?, zoom?, imageScaling?}, got ${describeValue(request)}`);
    checkFields(request as Record<string, unknown>, ['side', 'zoom', 'imageScaling'], 'a capture request has');
    const query: Record<string, string> = { side: checkSide(request.side ?? 'rear') };
    if (request.zoom !== undefined) query.zoom = String(checkZoom(request.zoom));
    if (request.imageScaling !== undefined) query.imageScaling = checkScaling(request.imageScaling);
    const req = this.request('GET', 'capture');
    const body = await this.call('GET', 'capture', 'capture', { signal: checkCallOptions(options), query, retry: true });
    this.requireSuccess(req, body);
    const problem = typeof body.image === 'string' ? imageProblem(body.image) : 'it is missing';
    if (problem) throw this.shapeError(req, body, `an "image" data URI of a JPEG; ${problem}`);
    const decoded = decodeDataUri(body.image as string)!;
    if (body.metadata !== undefined && !isObject(body.metadata)) throw this.shapeError(req, body, `"metadata" an object, got ${describeValue(body.metadata)}`);
    return { image: decoded.bytes, mimeType: decoded.mimeType, metadata: (body.metadata as Json | undefined) ?? {}, reply: body };
  }

  /**
   * Shows text full screen on the phone (POST /display) and returns at once; the text goes away
   * after `duration` ms. Blank text, a color the app's parser refuses (it takes `#RRGGBB`,
   * `#AARRGGBB` and color names, not `#RGB`) and a duration outside 100…30000 ms (which the app
   * would clamp without a word) are refused before sending. Only the fields given are sent.
   */
  async display(request: DisplayRequest, options: DeviceCallOptions = {}): Promise<DisplayReply> {
    if (!isObject(request as unknown)) throw new InvalidArgumentError(`a display request is an object {text, backgroundColor?, textColor?, duration?}, got ${describeValue(request)}`);
    checkFields(request as unknown as Record<string, unknown>, ['text', 'backgroundColor', 'textColor', 'duration'], 'a display request has');
    if (typeof request.text !== 'string') throw new InvalidArgumentError(`the text to display must be a string, got ${describeValue(request.text)}`);
    // The app's check is Kotlin's isBlank: whitespace only is "missing" (400 MISSING_TEXT).
    if (request.text.trim() === '') throw new InvalidArgumentError('the text to display is empty (or only white space), which the app refuses (MISSING_TEXT)');
    const json: Json = { text: request.text };
    if (request.backgroundColor !== undefined) json.backgroundColor = checkColor(request.backgroundColor, 'backgroundColor');
    if (request.textColor !== undefined) json.textColor = checkColor(request.textColor, 'textColor');
    if (request.duration !== undefined) json.duration = checkDisplayDuration(request.duration);
    const req = this.request('POST', 'display');
    const body = await this.call('POST', 'display', 'display', { signal: checkCallOptions(options), json });
    this.requireSuccess(req, body);
    if (typeof body.displayId !== 'string' || body.displayId === '') throw this.shapeError(req, body, 'a "displayId" string');
    if (body.parameters !== undefined && !isObject(body.parameters)) throw this.shapeError(req, body, `"parameters" an object, got ${describeValue(body.parameters)}`);
    return body as DisplayReply;
  }

  /**
   * The phone's GPS position (GET /location): latitude -90…90, longitude -180…180. The current
   * app build answers every call with HTTP 403 PERMISSION_DENIED: its manifest does not request
   * the location permission, so there is none to grant; the error says so. HTTP 503
   * LOCATION_UNAVAILABLE: the phone has no fix at the moment.
   */
  async location(options: DeviceCallOptions = {}): Promise<Location> {
    const request = this.request('GET', 'location');
    const body = await this.call('GET', 'location', 'location', { signal: checkCallOptions(options), retry: true });
    const number = (k: string, lo: number, hi: number, required: boolean, unit: string): void => {
      const v = body[k];
      if (v === undefined && !required) return;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < lo || v > hi) throw this.shapeError(request, body, `${k} a number of ${unit} from ${lo} to ${hi}, got ${shown(v)}`);
    };
    number('latitude', -90, 90, true, 'degrees');
    number('longitude', -180, 180, true, 'degrees');
    // Metres: below the Dead Sea shore to above any aircraft a phone is in.
    number('altitude', -12_000, 100_000, false, 'metres');
    number('accuracy', 0, 1e7, false, 'metres');
    number('timestamp', 0, 8.64e15, false, 'epoch milliseconds');
    if (body.provider !== undefined && typeof body.provider !== 'string') throw this.shapeError(request, body, `provider a string, got ${shown(body.provider)}`);
    if (body.backgroundAccess !== undefined && typeof body.backgroundAccess !== 'boolean') {
      throw this.shapeError(request, body, `backgroundAccess true or false, got ${shown(body.backgroundAccess)}`);
    }
    return body as Location;
  }

  /**
   * Why models may not be found or written (GET /ai/models/diagnostics): `diagnostics` is the
   * app's multi-line report (device, storage permissions, each model directory and a write test),
   * `summary` the same in a few fields. Uses timeouts.diagnostics.
   */
  async diagnostics(options: DeviceCallOptions = {}): Promise<ModelDiagnostics> {
    const request = this.request('GET', 'ai/models/diagnostics');
    const body = await this.call('GET', 'ai/models/diagnostics', 'diagnostics', { signal: checkCallOptions(options), retry: true });
    if (typeof body.diagnostics !== 'string') throw this.shapeError(request, body, `"diagnostics" the app's report text, got ${describeValue(body.diagnostics)}`);
    if (!isObject(body.summary)) throw this.shapeError(request, body, `"summary" an object, got ${describeValue(body.summary)}`);
    return body as ModelDiagnostics;
  }

  /**
   * Deletes a model's file from the phone and the app's records of it (DELETE /ai/models/{id};
   * id or display name given, the id sent), unloading it first if it is loaded. The app answers
   * success for a model that was not on the phone too. Sent once (a lost reply: check models()).
   */
  async deleteModel(name: string, options: DeviceCallOptions = {}): Promise<ModelRemoval> {
    const model = resolveModel(name);
    const path = `ai/models/${model.id}`;
    const request = this.request('DELETE', path);
    const body = await this.call('DELETE', path, 'delete', { signal: checkCallOptions(options), model });
    this.requireSuccess(request, body);
    // The app echoes the name from the path: anything else did not come from this request.
    if (body.modelName !== undefined && body.modelName !== model.id && body.modelName !== model.displayName) {
      throw this.mismatch(request, body, model, typeof body.modelName === 'string' ? body.modelName : shown(body.modelName), 'deleted');
    }
    return body as ModelRemoval;
  }

  /**
   * What the app offers now (GET /capabilities): per feature whether it is available (camera and
   * location follow the app's permissions), its endpoints and methods. Uses timeouts.status.
   */
  async capabilities(options: DeviceCallOptions = {}): Promise<DeviceCapabilities> {
    const body = await this.call('GET', 'capabilities', 'status', { signal: checkCallOptions(options), retry: true });
    const caps = body.capabilities;
    const texts = (v: unknown): boolean => v === undefined || (Array.isArray(v) && v.every((e) => typeof e === 'string'));
    const feature = (c: unknown): boolean =>
      isObject(c) && (c.available === undefined || typeof c.available === 'boolean') && texts(c.endpoints) && texts(c.methods) && (c.description === undefined || typeof c.description === 'string');
    if (!isObject(caps) || !Object.values(caps).every(feature)) {
      throw this.shapeError(this.request('GET', 'capabilities'), body, 'a "capabilities" object of {available, endpoints, …} per feature');
    }
    return body as DeviceCapabilities;
  }

  /** The app's banner (GET /) with the paths it lists (`available_endpoints`). Uses timeouts.status. */
  async banner(options: DeviceCallOptions = {}): Promise<DeviceBanner> {
    const body = await this.call('GET', '', 'status', { signal: checkCallOptions(options), retry: true });
    const list = body.available_endpoints;
    if (!Array.isArray(list) || !list.every((e) => typeof e === 'string')) throw this.shapeError(this.request('GET', ''), body, 'an "available_endpoints" list of paths');
    return body as DeviceBanner;
  }

  /**
   * The app's records of model files (GET /ai/models/status): counts, total size, the models
   * directory, one record per file. Uses timeouts.status.
   */
  async modelStorage(options: DeviceCallOptions = {}): Promise<ModelStorage> {
    const path = 'ai/models/status';
    const body = await this.call('GET', path, 'status', { signal: checkCallOptions(options), retry: true });
    if (typeof body.totalModels !== 'number' || !Array.isArray(body.availableModels) || !body.availableModels.every(isObject)) {
      throw this.shapeError(this.request('GET', path), body, 'a "totalModels" number and an "availableModels" list of records');
    }
    return body as ModelStorage;
  }

  /**
   * Drops the app's records of model files that are no longer on the phone (POST
   * /ai/models/cleanup), e.g. after deleting one by hand. Uses timeouts.delete.
   */
  async cleanupModels(options: DeviceCallOptions = {}): Promise<ModelCleanup> {
    const path = 'ai/models/cleanup';
    const request = this.request('POST', path);
    const body = await this.call('POST', path, 'delete', { signal: checkCallOptions(options) });
    this.requireSuccess(request, body);
    if (!Number.isInteger(body.cleanedModels) || (body.cleanedModels as number) < 0) throw this.shapeError(request, body, 'a "cleanedModels" count');
    return body as ModelCleanup;
  }

  /**
   * Has the phone fetch a model's file from a URL (POST /ai/text/upload-model-api): the way to
   * install a gated model (or any, from a mirror) without the app's UI. The file is saved under
   * the model's own file name, which is how the app finds it. Like downloadModel, the app
   * answers when the transfer is over (timeouts.download); a failed transfer is HTTP 200 with
   * `success: false` (a ServiceFailureError). A file of that name already there is not fetched
   * again (status ALREADY_EXISTS; the app does not check it).
   */
  async uploadModel(request: UploadRequest, options: DeviceCallOptions = {}): Promise<UploadReply> {
    if (!isObject(request as unknown)) throw new InvalidArgumentError(`an upload request is an object {model, url}, got ${describeValue(request)}`);
    checkFields(request as unknown as Record<string, unknown>, ['model', 'url'], 'an upload request has');
    const model = resolveModel(request.model);
    const url = checkModelUrl(request.url);
    const path = 'ai/text/upload-model-api';
    const req = this.request('POST', path);
    const body = await this.call('POST', path, 'download', { signal: checkCallOptions(options), json: { url, name: model.displayName, fileName: model.fileName }, model });
    this.requireSuccess(req, body);
    if (body.status !== 'ALREADY_EXISTS' && body.status !== 'DOWNLOADED') throw this.shapeError(req, body, 'a "status" of ALREADY_EXISTS or DOWNLOADED');
    if (body.model !== undefined && !isObject(body.model)) throw this.shapeError(req, body, `"model" an object {name, fileName, url, …}, got ${describeValue(body.model)}`);
    const echoed = isObject(body.model) ? body.model.fileName : undefined;
    if (echoed !== undefined && echoed !== model.fileName) throw this.shapeError(req, body, `the file name sent, ${model.fileName}, echoed in "model"`);
    return body as UploadReply;
  }

  private async generate(json: Json, model: ModelSpec, signal: AbortSignal | undefined, queuedMs: number): Promise<TextReply> {
    const request = this.request('POST', 'ai/text');
    const body = await this.call('POST', 'ai/text', 'text', { json, signal, queuedMs, model });
    if (typeof body.response !== 'string' || typeof body.model !== 'string') {
      throw this.shapeError(request, body, 'a "response" string and a "model"');
    }
    // The rest as TextReply says: DeepSeek's thinking and the license texts, metadata an object.
    const notText = ['thinking', 'license'].find((k) => body[k] !== undefined && typeof body[k] !== 'string');
    if (notText) throw this.shapeError(request, body, `"${notText}" a text, got ${describeValue(body[notText])}`);
    if (body.metadata !== undefined && !isObject(body.metadata)) throw this.shapeError(request, body, `"metadata" an object, got ${describeValue(body.metadata)}`);
    // The app answers a model name it does not know with GEMMA_3_1B_IT instead of refusing it.
    if (body.model !== model.id && body.model !== model.displayName) throw this.mismatch(request, body, model, body.model, 'answered');
    // A photo (returnImage) may be absent (the app could not take it), but when present it must be one.
    if (body.image !== undefined) {
      const problem = typeof body.image === 'string' ? imageProblem(body.image) : `it is ${describeValue(body.image)}`;
      if (problem) throw this.shapeError(request, body, `an "image" data URI of a JPEG (returnImage); ${problem}`);
    }
    return body as TextReply;
  }

  /** `success` must be true in the replies that carry it (capture, detection, download, display, deletion). */
  private requireSuccess(request: string, body: Json): void {
    if (body.success === true) return;
    const why = firstString(body.error, body.message, body.details);
    if (why !== undefined) {
      throw new ServiceFailureError({ service: 'device service', request }, body, `${this.where()}: ${request} failed: ${oneLine(why)}`);
    }
    throw this.shapeError(request, body, `"success": true, got ${shown(body.success, 'no "success"')}`);
  }

  private mismatch(request: string, body: Json, model: ModelSpec, answered: string, verb: string): ModelMismatchError {
    const other = MODELS.find((m) => m.id === answered || m.displayName === answered);
    return new ModelMismatchError(
      { service: 'device service', request },
      bodyText(body),
      model.id,
      answered,
      `${this.where()}: asked for ${model.id} (${model.displayName}) but ${other ? `${other.id} (${other.displayName})` : JSON.stringify(answered)} ${verb}: this app version does not know ${model.id} and fell back to another model; update the AI Phone Server app, or pick a model that \`heapql device models\` (models()) lists`,
    );
  }

  /** One request: status, JSON and `success: false` checked; every failure typed. */
  private async call(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    /** Which of `timeouts` limits this call. */
    limit: keyof DeviceTimeouts,
    options: { json?: Json; query?: Record<string, string>; signal?: AbortSignal; retry?: boolean; queuedMs?: number; model?: ModelSpec } = {},
  ): Promise<Json> {
    // Checked by the public method (checkCallOptions) that called this.
    const signal = options.signal;
    const unsure = method !== 'GET' && path !== 'ai/object_detection' ? unsureHint(path) : undefined;
    const reply = await this.transport.send(path, {
      method,
      timeoutMs: this.timeouts[limit],
      limitOption: `timeouts.${limit} (heapql device: --timeout <seconds>)`,
      json: options.json,
      query: options.query,
      headers: { accept: 'application/json' },
      signal,
      retry: options.retry,
      unsure,
      queuedMs: options.queuedMs,
    });
    const info: RequestInfo = { service: 'device service', request: this.request(method, path) };
    const parsed = parseJson(reply.text);
    if (reply.status < 200 || reply.status > 299) throw this.httpError(info, reply, parsed, options.model, path);
    if (!isObject(parsed)) {
      throw new ServiceProtocolError(info, reply.text, `${this.where()}: ${info.request} answered something that is not a JSON object: ${JSON.stringify(reply.text.slice(0, 200))}`);
    }
    replyTexts.set(parsed, reply.text);
    if (parsed.success === false) {
      const why = firstString(parsed.error, parsed.message, parsed.details) ?? 'no reason given';
      // A failed download names the model file's URL.
      const url = typeof parsed.downloadUrl === 'string' && parsed.downloadUrl !== '' ? ` (the file is at ${parsed.downloadUrl}; try again later)` : '';
      throw new ServiceFailureError(info, parsed, `${this.where()}: ${info.request} failed: ${oneLine(why)}${url}`);
    }
    return parsed;
  }

  private httpError(info: RequestInfo, reply: Reply, parsed: unknown, model: ModelSpec | undefined, path: string): ServiceHttpError {
    const body = isObject(parsed) ? parsed : undefined;
    const code = typeof body?.code === 'string' ? body.code : undefined;
    let text = `${this.where()}: ${info.request} answered HTTP ${reply.status}${code ? ` ${code}` : ''}`;
    const error = firstString(body?.error, body?.message);
    const detail = firstString(body?.details, body?.description);
    if (error) text += `: ${oneLine(error)}`;
    if (detail && detail !== error) text += ` (${oneLine(detail)})`;
    // A body that is not the app's {error, code, details} (text, or another service's JSON) as it came.
    if (!error && !detail && !code && reply.text.trim() !== '') text += `: ${oneLine(reply.text)}`;
    if (reply.status >= 300 && reply.status < 400) {
      text += ` — a redirect to ${reply.location ?? 'nowhere (no Location header)'}, not followed: point the URL at the AI Phone Server itself`;
    } else if (reply.status === 403 && code === undefined && reply.text.trim() === '') {
      // The app's own 403s carry a body; the CORS plugin's refusal is empty.
      text += " — refused by the app's CORS check, not for a missing permission: the request carried an Origin header (a browser, or a proxy in between, added it), and from another origin the app allows only GET, POST and OPTIONS";
    } else if (reply.status === 403 && path === 'location') {
      text +=
        ' — the app has no location permission. The current AI Phone Server build does not request one (its manifest leaves location access out), so there is none to grant and /location always answers 403; with a build that requests it, grant location access in the app';
    } else if (reply.status === 403) text += ' — a permission is missing on the phone: grant it in the AI Phone Server app';
    else if (code === 'LOCATION_UNAVAILABLE') text += ' — the phone has no location fix at the moment (location turned off, or no GPS signal): try again later';
    // The app's unmatched routes answer an empty 404/405; its own 404s carry a code. Anything else is not the app.
    else if ((reply.status === 404 || reply.status === 405) && code === undefined) {
      text += ' — this app version has no such endpoint, or the URL is not the AI Phone Server';
    } else if (code === 'MODEL_NOT_AVAILABLE' || code === 'MODEL_NOT_DOWNLOADED') {
      text += model?.gated
        ? ` — ${model.id} is gated on Hugging Face, so the API cannot download it: install it on the phone through the AI Phone Server app`
        : ` — download it first (heapql device download ${model?.id ?? '<model>'}, or downloadModel())`;
    } else if (code === 'AUTH_REQUIRED' && model) text += ` — ${gatedAdvice(model)}`;
    return new ServiceHttpError(info, reply.status, reply.text, parsed, code, text);
  }

  private shapeError(request: string, body: Json, expected: string): ServiceProtocolError {
    const text = bodyText(body);
    return new ServiceProtocolError({ service: 'device service', request }, text, `${this.where()}: unexpected reply to ${request} (expected ${expected}): ${text.slice(0, 200).replace(/\s*\n\s*/g, ' ')}`);
  }

  /** A request as sent, without its query: `GET /status`, or `GET /v0/status` when the URL has a path. */
  private request(method: 'GET' | 'POST' | 'DELETE', path: string): string {
    return this.transport.describe(path, { method }).request;
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

function textBody(request: TextRequest): { json: Json; model: ModelSpec } {
  if (!isObject(request as unknown)) throw new InvalidArgumentError(`a text request is an object {text, model, …}, got ${describeValue(request)}`);
  checkFields(
    request as unknown as Record<string, unknown>,
    ['text', 'model', 'maxTokens', 'temperature', 'topK', 'topP', 'image', 'captureConfig', 'returnImage', 'imageScaling'],
    'a text request has',
  );
  if (typeof request.text !== 'string') throw new InvalidArgumentError(`the prompt text must be a string, got ${describeValue(request.text)}`);
  if (request.text.trim() === '') throw new InvalidArgumentError(request.text === '' ? 'the prompt text is empty: give the model something to answer' : 'the prompt text is only white space: give the model something to answer');
  const model = resolveModel(request.model);
  const body: Json = { text: request.text, model: model.id };
  if (request.maxTokens !== undefined) {
    checkInt32(request.maxTokens, 'maxTokens');
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
  const sampling = (['temperature', 'topK', 'topP'] as const).filter((k) => request[k] !== undefined);
  if (sampling.length > 0 && !(model.vision && imageInput)) {
    // The app builds a text-only session with the model's defaults, yet echoes these in metadata.
    throw new InvalidArgumentError(
      `${sampling.join(', ')} take effect only on the app's multimodal path (GEMMA_3_1B_IT with an image or captureConfig); the app ignores them on a text-only generation (while echoing them in its metadata), so they are not sent`,
    );
  }
  if (request.temperature !== undefined) {
    const t = request.temperature;
    if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) throw new InvalidArgumentError(`temperature must be a number from 0 up, got ${describeValue(t)}`);
    body.temperature = t;
  }
  if (request.topK !== undefined) body.topK = checkInt32(request.topK, 'topK');
  if (request.topP !== undefined) {
    const p = request.topP;
    if (typeof p !== 'number' || !(p > 0 && p <= 1)) throw new InvalidArgumentError(`topP must be a number above 0 and at most 1, got ${describeValue(p)}`);
    body.topP = p;
  }
  if (request.image !== undefined) body.image = rawBase64(request.image);
  if (request.captureConfig !== undefined) {
    body.captureConfig = captureConfigBody(request.captureConfig);
  }
  const returnImage = request.returnImage ?? false;
  if (typeof returnImage !== 'boolean') throw new InvalidArgumentError(`returnImage must be true or false, got ${describeValue(returnImage)}`);
  if (returnImage) {
    body.returnImage = true;
    // Without imageScaling the app's attach step fails silently: always send one.
    body.imageScaling = checkScaling(request.imageScaling ?? 'MEDIUM');
  } else if (request.imageScaling !== undefined) {
    throw new InvalidArgumentError('imageScaling sizes the photo that returnImage asks for: set returnImage: true too');
  }
  return { json: body, model };
}

/**
 * The largest image sent (decoded bytes). The app decodes the whole image in the phone's memory,
 * and a photo is a few MiB; far beyond this, the base64 text would not even fit in a JavaScript
 * string (about 400 MB of image), which failed with only "Cannot create a string longer than …".
 */
export const MAX_IMAGE_BYTES = 64 * 1024 * 1024;

/** Why an image of `bytes` bytes is not sent, for InvalidArgumentError (prefixed by what it is). */
export function imageTooLarge(bytes: number): string | undefined {
  return bytes > MAX_IMAGE_BYTES ? `is ${bytes} bytes; at most ${MAX_IMAGE_BYTES} (64 MiB) are sent (a phone photo is a few MiB: scale it down)` : undefined;
}

/** The server decodes plain base64 only: bytes are encoded, a data: URI prefix is dropped. */
function rawBase64(image: Uint8Array | string): string {
  if (typeof image !== 'string' && !(image instanceof Uint8Array)) {
    throw new InvalidArgumentError(`the image must be bytes (a Uint8Array or Buffer) or a base64 string, got ${describeValue(image)}`);
  }
  if (typeof image !== 'string') {
    if (image.length === 0) throw new InvalidArgumentError('the image is empty');
    const tooLarge = imageTooLarge(image.byteLength);
    if (tooLarge) throw new InvalidArgumentError(`the image ${tooLarge}`);
    return Buffer.from(image.buffer, image.byteOffset, image.byteLength).toString('base64');
  }
  const data = image.replace(/^data:[^,]*;base64,/, '').replace(/\s/g, '');
  if (data === '' || data.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) {
    throw new InvalidArgumentError('the image string is not base64 (pass bytes, base64 or a base64 data: URI)');
  }
  const tooLarge = imageTooLarge((data.length / 4) * 3 - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0));
  if (tooLarge) throw new InvalidArgumentError(`the image ${tooLarge}`);
  return data;
}

/**
 * A Kotlin Int of a request body, 1…2^31-1. The app's JSON parser (Gson) fails on a number
 * beyond 32 bits: /ai/text then answers 500, and object detection silently drops the whole
 * body (every field back to its default).
 */
function checkInt32(value: unknown, what: string): number {
  if (typeof value !== 'number') throw new InvalidArgumentError(`${what} must be a positive whole number, got ${describeValue(value)}`);
  if (!Number.isInteger(value) || value < 1 || value > INT32_MAX) throw new InvalidArgumentError(`${what} ${value} is invalid: use a whole number from 1 to ${INT32_MAX}`);
  return value;
}

const INT32_MAX = 2_147_483_647;

/**
 * captureConfig as the app reads it ({camera, quality, maxWidth, maxHeight}), checked. Any other
 * field is refused, as in the request itself: a misspelt `camra: 'front'` would otherwise leave
 * the rear camera in force without a word.
 */
function captureConfigBody(config: unknown): Json {
  if (!isObject(config)) throw new InvalidArgumentError(`captureConfig must be an object such as {camera: 'rear'}, got ${describeValue(config)}`);
  checkFields(config, ['camera', 'quality', 'maxWidth', 'maxHeight'], 'captureConfig has');
  const body: Json = { camera: checkSide(config.camera ?? 'rear') };
  const whole = (key: string, max: number): void => {
    const v = config[key];
    if (v === undefined) return;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) {
      throw new InvalidArgumentError(`captureConfig.${key} must be a whole number from 1 to ${max}, got ${describeValue(v)}`);
    }
    body[key] = v;
  };
  whole('quality', 100);
  whole('maxWidth', INT32_MAX);
  whole('maxHeight', INT32_MAX);
  return body;
}

/** A model file URL the phone fetches: http(s) only (the app's Java URL would also open file: and jar: on the phone). */
function checkModelUrl(value: unknown): string {
  if (typeof value !== 'string') throw new InvalidArgumentError(`the model file URL must be a string such as https://huggingface.co/…/model.task, got ${describeValue(value)}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError(`the model file URL ${JSON.stringify(value)} is not a URL; expected e.g. https://huggingface.co/…/model.task`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError(`the model file URL ${value} must start with http:// or https://`);
  return value;
}

function checkZoom(zoom: unknown): number {
  if (typeof zoom !== 'number') throw new InvalidArgumentError(`zoom must be a positive number, got ${describeValue(zoom)}`);
  if (!Number.isFinite(zoom) || zoom <= 0) throw new InvalidArgumentError(`zoom ${zoom} is invalid: use a positive number`);
  return zoom;
}

export const IMAGE_SCALINGS: readonly ImageScaling[] = ['NONE', 'SMALL', 'MEDIUM', 'LARGE', 'ULTRA'];

/** The app takes any case and quietly uses MEDIUM for a name it does not know; refuse that instead. */
function checkScaling(value: unknown): ImageScaling {
  const known = `${IMAGE_SCALINGS.slice(0, -1).join(', ')} or ${IMAGE_SCALINGS.at(-1)}`;
  if (typeof value !== 'string') throw new InvalidArgumentError(`imageScaling must be one of ${known}, got ${describeValue(value)}`);
  const name = value.toUpperCase() as ImageScaling;
  if (!IMAGE_SCALINGS.includes(name)) throw new InvalidArgumentError(`imageScaling ${JSON.stringify(value)} is invalid: use ${known}`);
  return name;
}

function checkSide(side: unknown): CameraSide {
  if (typeof side !== 'string') throw new InvalidArgumentError(`camera side must be the string rear or front, got ${describeValue(side)}`);
  if (side !== 'rear' && side !== 'front') throw new InvalidArgumentError(`camera side ${JSON.stringify(side)} is invalid: use rear or front`);
  return side;
}

/** Why an image data URI is not usable, or undefined: it must be base64 of an image/* type, and a JPEG must start like one. */
function imageProblem(uri: string): string | undefined {
  const decoded = decodeDataUri(uri);
  if (!decoded) return `${JSON.stringify(uri.slice(0, 40))} is not a base64 data URI`;
  if (!/^image\/[a-z0-9.+-]+$/i.test(decoded.mimeType)) return `its type is ${decoded.mimeType}, not an image`;
  const b = decoded.bytes;
  if (/^image\/(jpeg|jpg|pjpeg)$/i.test(decoded.mimeType) && !(b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff)) {
    return 'it says image/jpeg, but the bytes do not start with a JPEG marker (FF D8 FF)';
  }
  return undefined;
}

/**
 * Why a detected object is not {category, score 0…1, boundingBox in fractions of the frame}, or
 * undefined. MediaPipe's boxes may reach past the frame's edges and the app does not clip them
 * (an object cut off by the edge: left -0.01), so coordinates from -1 to 2 pass, and widths and
 * heights from 0 to 3; beyond that they are no fractions of the frame (pixels, say).
 */
function detectedObjectProblem(o: unknown): string | undefined {
  if (!isObject(o)) return `is ${describeValue(o)}`;
  if (typeof o.category !== 'string') return `has category ${shown(o.category, 'missing')}`;
  if (typeof o.score !== 'number' || !(o.score >= 0 && o.score <= 1)) return `has score ${shown(o.score, 'missing')}`;
  if (o.categoryIndex !== undefined && !Number.isInteger(o.categoryIndex)) return `has categoryIndex ${shown(o.categoryIndex)}`;
  const box = o.boundingBox;
  if (!isObject(box)) return 'has no boundingBox';
  for (const k of ['left', 'top', 'right', 'bottom', 'width', 'height']) {
    const v = box[k];
    const size = k === 'width' || k === 'height';
    if (v === undefined && size) continue;
    const [lo, hi] = size ? [0, 3] : [-1, 2];
    if (typeof v !== 'number' || !(v >= lo && v <= hi)) return `has boundingBox.${k} ${shown(v, 'missing')}, not a fraction of the frame (${lo}…${hi})`;
  }
  if ((box.left as number) > (box.right as number) || (box.top as number) > (box.bottom as number)) return 'has a boundingBox whose left/top lie beyond its right/bottom';
  return undefined;
}

function gatedAdvice(model: ModelSpec): string {
  return `${model.id} (${model.displayName}) is gated on Hugging Face: the app cannot download it through the API; install it on the phone through the AI Phone Server app (only ${MODELS.filter((m) => !m.gated)
    .map((m) => m.id)
    .join(' and ')} download through the API)`;
}

/** For a timeout or lost connection of a call that changes something on the phone. */
function unsureHint(path: string): string {
  if (path === 'ai/models/download' || path === 'ai/text/upload-model-api') return 'check with heapql device models (models()) whether the model is there before downloading again';
  if (path === 'display') return 'the text may already be on the phone\'s screen';
  if (path === 'ai/models/cleanup') return 'the records may already be dropped; running heapql device cleanup (cleanupModels()) again is harmless';
  if (path.startsWith('ai/models/')) return 'check with heapql device models (models()) whether the model is still on the phone';
  return 'a generation may still be running on the phone (heapql device status shows it)';
}

/**
 * The color names Android's Color.parseColor knows (any case), and `transparent`, which the
 * app adds. A name outside these, and `#RGB`, make the app answer 400 DISPLAY_FAILED.
 */
export const COLOR_NAMES: readonly string[] = [
  'black', 'darkgray', 'gray', 'lightgray', 'white', 'red', 'green', 'blue', 'yellow', 'cyan', 'magenta',
  'aqua', 'fuchsia', 'darkgrey', 'grey', 'lightgrey', 'lime', 'maroon', 'navy', 'olive', 'purple', 'silver', 'teal', 'transparent',
];

/**
 * Null when the app reads `value` as a color (#RRGGBB, #AARRGGBB or one of COLOR_NAMES);
 * else what is wrong with it: for `#RGB`, the `#RRGGBB` it means (the app's parser takes none).
 */
export function colorFault(value: string): { longForm: string | null } | null {
  if (/^#([0-9a-f]{6}|[0-9a-f]{8})$/i.test(value) || COLOR_NAMES.includes(value.toLowerCase())) return null;
  const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(value);
  return { longForm: short ? `#${short[1]!.repeat(2)}${short[2]!.repeat(2)}${short[3]!.repeat(2)}` : null };
}

function checkColor(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new InvalidArgumentError(`${what} must be a color string such as #FF8800 or red, got ${describeValue(value)}`);
  const fault = colorFault(value);
  if (!fault) return value;
  const advice = fault.longForm ? `; the app's parser takes no #RGB: write ${fault.longForm}` : '';
  throw new InvalidArgumentError(`${what} ${JSON.stringify(value)} is not a color the app reads: use #RRGGBB, #AARRGGBB or a color name (${COLOR_NAMES.join(', ')})${advice}`);
}

/** The app clamps a duration to 100…30000 ms (and truncates a fraction) without saying so; refuse instead. */
function checkDisplayDuration(value: unknown): number {
  if (typeof value !== 'number') throw new InvalidArgumentError(`duration must be a number of milliseconds, got ${describeValue(value)}`);
  if (!Number.isInteger(value) || value < 100 || value > 30_000) {
    throw new InvalidArgumentError(`duration ${value} is invalid: use a whole number of milliseconds from 100 to 30000 (the app would quietly clamp it to that range)`);
  }
  return value;
}


/**
 * A reply object as compact JSON for an error; the text it was parsed from when it cannot be
 * re-encoded (JSON.stringify recurses: a reply nested some thousand levels deep, which JSON.parse
 * reads, would throw a RangeError instead of the protocol error).
 */
function bodyText(body: Json): string {
  try {
    return JSON.stringify(body);
  } catch {
    return replyTexts.get(body) ?? '(a reply that cannot be shown)';
  }
}

/** A value of a reply, quoted for a message: its JSON (`absent` when undefined), or what it is when that cannot be made (nested too deep). */
function shown(value: unknown, absent = 'nothing'): string {
  if (value === undefined) return absent;
  try {
    return JSON.stringify(value);
  } catch {
    return describeValue(value);
  }
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}


function firstString(...values: unknown[]): string | undefined {
  return values.find((v): v is string => typeof v === 'string' && v.trim() !== '');
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 400 ? `${flat.slice(0, 400)}…` : flat;
}
