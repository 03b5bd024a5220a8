/**
 * Emulator of the AI Phone Server (Ktor 2.3.7 in an Android app) for contract tests, on a real
 * loopback port. It reproduces docs/clients-spec.md B.1–B.7, quirks included: Gson's pretty JSON
 * with `<>&='` escaped and null keys omitted, `application/json; charset=UTF-8`, 404/405 with
 * empty bodies, the CORS plugin's preflight and 403s, `/ai/text`'s processing order and silent
 * fallback to GEMMA_3_1B_IT for unknown names, HTTP 200 with `success:false` from object
 * detection and downloads, the blocking download, permissions that can be switched off, an
 * Accept without JSON failing (content negotiation), /status showing a running generation, and
 * loading-status and /status showing the load of a model a generation needs (loadGate).
 * Camera frames are small fixed byte strings, generation is deterministic (an echo).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface Model {
  id: string;
  displayName: string;
  vision: boolean;
  gated: boolean;
  thinking: boolean;
  fileName: string;
  defaults: { temperature: number; topK: number; topP: number };
}

export const EMULATED_MODELS: readonly Model[] = [
  { id: 'GEMMA_3_1B_IT', displayName: 'Gemma 3n E2B IT', vision: true, gated: true, thinking: false, fileName: 'gemma-3n-E2B-it-int4.task', defaults: { temperature: 1.0, topK: 64, topP: 0.95 } },
  { id: 'DEEPSEEK_R1_DISTILL_QWEN_1_5B', displayName: 'DeepSeek-R1 Distill Qwen 1.5B', vision: false, gated: false, thinking: true, fileName: 'DeepSeek-R1-Distill-Qwen-1.5B_multi-prefill-seq_q8_ekv1280.task', defaults: { temperature: 0.6, topK: 40, topP: 0.7 } },
  { id: 'LLAMA_3_2_1B_INSTRUCT', displayName: 'Llama 3.2 1B Instruct', vision: false, gated: true, thinking: false, fileName: 'Llama-3.2-1B-Instruct_multi-prefill-seq_q8_ekv1280.task', defaults: { temperature: 0.6, topK: 64, topP: 0.9 } },
  { id: 'LLAMA_3_2_3B_INSTRUCT', displayName: 'Llama 3.2 3B Instruct', vision: false, gated: true, thinking: false, fileName: 'Llama-3.2-3B-Instruct_multi-prefill-seq_q8_ekv1280.task', defaults: { temperature: 0.6, topK: 64, topP: 0.9 } },
  { id: 'TINYLLAMA_1_1B_CHAT', displayName: 'TinyLlama 1.1B Chat', vision: false, gated: false, thinking: false, fileName: 'TinyLlama-1.1B-Chat-v1.0_multi-prefill-seq_q8_ekv1024.task', defaults: { temperature: 0.7, topK: 40, topP: 0.9 } },
];

const DETECTIONS = [
  { category: 'person', score: 0.91, box: [0.1, 0.05, 0.45, 0.95], categoryIndex: 0 },
  { category: 'cup', score: 0.72, box: [0.6, 0.55, 0.7, 0.7], categoryIndex: 46 },
  { category: 'laptop', score: 0.55, box: [0.5, 0.4, 0.95, 0.8], categoryIndex: 72 },
  // Past the frame's left and bottom edges: MediaPipe's boxes are not clipped, nor does the app clip them.
  { category: 'chair', score: 0.31, box: [-0.012, 0.5, 0.2, 1.008], categoryIndex: 61 },
];

const CORS_METHODS = new Set(['GET', 'POST', 'OPTIONS', 'HEAD']);

/** The app's ImageScaling: longest side in pixels (NONE: the camera's 4000x3000) and JPEG quality. */
const SCALING: Record<string, { side: number; quality: number }> = {
  NONE: { side: 4000, quality: 95 },
  SMALL: { side: 512, quality: 70 },
  MEDIUM: { side: 1024, quality: 85 },
  LARGE: { side: 2048, quality: 90 },
  ULTRA: { side: 4096, quality: 95 },
};

/** An imageScaling value as the app reads it: any case, MEDIUM when missing or unknown. */
function scaling(value: unknown): string {
  const name = typeof value === 'string' ? value.toUpperCase() : 'MEDIUM';
  return name in SCALING ? name : 'MEDIUM';
}
const CORS_HEADERS = new Set(['content-type', 'authorization', 'accept', 'accept-language', 'content-language']);

/** The bytes of a camera frame: a JPEG start/end marker around a text naming the shot. */
export function frameBytes(side: string, zoom?: number): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from(`emulated ${side} frame zoom=${zoom ?? 1}`), Buffer.from([0xff, 0xd9])]);
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status: number;
  json?: unknown;
  /** Sent verbatim instead of json. */
  text?: string;
  headers?: Record<string, string>;
}

type Handler = (req: ReceivedRequest, url: URL, params: Record<string, string>) => Reply | Promise<Reply>;

interface Route {
  method: string;
  pattern: string[];
  handler: Handler;
}

export class DeviceEmulator {
  storagePermission = true;
  cameraPermission = true;
  /** Model ids whose files are on the phone. */
  readonly downloaded = new Set<string>();
  downloadOutcome: 'success' | 'network-failure' = 'success';
  /**
   * Model ids this (older) app version does not know: /ai/text resolves them like any unknown
   * name, to GEMMA_3_1B_IT, without saying so (the real app's fallback).
   */
  readonly unknownToApp = new Set<string>();
  /**
   * Model ids whose file is on the phone but does not load (corrupt, too big for the RAM):
   * /ai/text answers 400 AI_SERVICE_ERROR with the engine's multi-line message, and the model
   * is marked failed: no longer available in /ai/models or counted in /status.
   */
  readonly failsToLoad = new Set<string>();
  /**
   * Whether the app holds the location permission. False as in the current build, whose manifest
   * does not request it: /location then answers 403 PERMISSION_DENIED, always.
   */
  locationPermission = false;
  /** The phone's last fix (with locationPermission); none: /location answers 503 LOCATION_UNAVAILABLE. */
  locationFix: { latitude: number; longitude: number; altitude: number; accuracy: number; time: number; provider?: string } | undefined;
  /** What /display was asked to show, as the app shows it (duration clamped to 100…30000 ms). */
  readonly displays: { text: string; backgroundColor: string; textColor: string; duration: number }[] = [];
  /** Records of model files deleted outside the app, which /ai/models/cleanup drops (and counts). */
  staleRecords = 0;
  /** The URLs /ai/text/upload-model-api fetched. */
  readonly uploads: string[] = [];
  /** False until the phone's sensors have reported: /orientation then answers zeros and UNKNOWN. */
  sensorsReady = true;
  /** When true, requests are received but never answered (until close). */
  hold = false;
  /** When set, a request it matches gets this reply instead (to test client reactions to odd servers). */
  override: ((req: ReceivedRequest) => Reply | undefined) | undefined;
  /** Awaited by /ai/text before it answers (to observe overlapping generations). */
  textGate: (() => Promise<void>) | undefined;
  /**
   * Awaited by /ai/text while it loads a model that is not the loaded one (before generating):
   * meanwhile /ai/models/loading-status and /status report the load.
   */
  loadGate: (() => Promise<void>) | undefined;
  maxTextInFlight = 0;
  readonly requests: ReceivedRequest[] = [];
  port = 0;

  private textInFlight = 0;
  /** The model being loaded by a generation, and since when. */
  private loading: { model: Model; since: number } | undefined;
  /** When the running generation started (/status: isProcessing, processingStartTime). */
  private processingSince: number | undefined;
  /** Models that failed to load (see failsToLoad). */
  private readonly failed = new Set<string>();
  private currentModel: Model | undefined;
  private readonly server: http.Server;
  private readonly routes: Route[] = [];
  private closed: Promise<void> | undefined;

  private constructor() {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.defineRoutes();
  }

  static async start(): Promise<DeviceEmulator> {
    const emu = new DeviceEmulator();
    await new Promise<void>((resolve, reject) => {
      emu.server.once('error', reject);
      emu.server.listen(0, '127.0.0.1', () => resolve());
    });
    emu.port = (emu.server.address() as AddressInfo).port;
    return emu;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  reset(): void {
    this.storagePermission = true;
    this.cameraPermission = true;
    this.downloaded.clear();
    this.downloadOutcome = 'success';
    this.unknownToApp.clear();
    this.failsToLoad.clear();
    this.failed.clear();
    this.sensorsReady = true;
    this.locationPermission = false;
    this.locationFix = undefined;
    this.displays.length = 0;
    this.staleRecords = 0;
    this.uploads.length = 0;
    this.hold = false;
    this.textGate = undefined;
    this.loadGate = undefined;
    this.loading = undefined;
    this.override = undefined;
    this.maxTextInFlight = 0;
    this.processingSince = undefined;
    this.currentModel = undefined;
    this.requests.length = 0;
  }

  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    return this.closed;
  }

  // ---- HTTP, CORS, routing ------------------------------------------------------------------

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const received: ReceivedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
    this.requests.push(received);
    if (this.hold) return;
    let reply = this.override?.(received) ?? (await this.dispatch(received));
    // Ktor's content negotiation: with an Accept that excludes JSON no converter is suitable, the
    // object stays untransformed and the response pipeline fails (inferred: 500, empty body).
    if (reply.json !== undefined && !acceptsJson(req.headers.accept)) reply = { status: 500, headers: reply.headers };
    const headers: Record<string, string> = { ...reply.headers };
    let body: string | undefined;
    if (reply.json !== undefined) {
      body = gson(reply.json);
      headers['content-type'] = 'application/json; charset=UTF-8';
    } else if (reply.text !== undefined) {
      body = reply.text;
    }
    res.writeHead(reply.status, headers);
    res.end(body);
  }

  private async dispatch(req: ReceivedRequest): Promise<Reply> {
    const url = new URL(req.path, 'http://device');
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const requested = req.headers['access-control-request-method'];
      if (req.method === 'OPTIONS' && typeof requested === 'string') return preflight(requested, req.headers['access-control-request-headers']);
      if (!CORS_METHODS.has(req.method)) return { status: 403 };
    }
    const reply = await this.route(req, url);
    if (origin !== undefined) reply.headers = { ...reply.headers, 'access-control-allow-origin': '*' };
    return reply;
  }

  private async route(req: ReceivedRequest, url: URL): Promise<Reply> {
    const parts = url.pathname.split('/').filter((p) => p !== '');
    // Ktor prefers constant segments over parameters; try routes in that order.
    const matches = this.routes
      .map((r) => ({ r, params: matchPattern(r.pattern, parts) }))
      .filter((m): m is { r: Route; params: Record<string, string> } => m.params !== undefined)
      .sort((a, b) => paramCount(a.r.pattern) - paramCount(b.r.pattern));
    if (matches.length === 0) return { status: 404 };
    const hit = matches.find((m) => m.r.method === req.method);
    if (!hit) return { status: 405 };
    try {
      return await hit.r.handler(req, url, hit.params);
    } catch (err) {
      return { status: 500, json: { error: (err as Error).message } };
    }
  }

  private on(method: string, path: string, handler: Handler): void {
    this.routes.push({ method, pattern: path.split('/').filter((p) => p !== ''), handler });
  }

  // ---- endpoints ----------------------------------------------------------------------------

  private defineRoutes(): void {
    this.on('GET', '/', () =>
      ok({
        server: 'AI Phone Server',
        version: '1.0.0-ai-enabled',
        message: 'Interactive API testing available in the Android app',
        documentation: 'Visit /help for complete API documentation',
        // Paths only, as the app lists them (not every route: upload-model-api and a few reads are missing).
        available_endpoints: ['/status', '/health', '/capabilities', '/help', '/location', '/orientation', '/capture', '/display', '/ai/text', '/ai/object_detection', '/ai/models', '/ai/models/download', '/ai/models/status', '/ai/models/{modelName}/status', '/ai/models/cleanup', '/ai/models/{modelName}'],
      }),
    );
    this.on('GET', '/health', () => ok({ status: 'healthy', timestamp: Date.now(), services: { location: 'available', orientation: 'available', camera: 'available' } }));
    this.on('GET', '/capabilities', () => ok(this.capabilities()));
    this.on('GET', '/status', () => ok(this.status()));
    this.on('GET', '/help', () => ok(help()));
    this.on('GET', '/location', () => this.location());
    this.on('GET', '/orientation', () =>
      ok(this.sensorsReady ? { azimuth: 123.5, pitch: -2.25, roll: 1.5, timestamp: Date.now(), accuracy: 'HIGH' } : { azimuth: 0, pitch: 0, roll: 0, timestamp: 0, accuracy: 'UNKNOWN' }),
    );
    this.on('GET', '/capture', (_req, url) => this.capture(url));
    this.on('POST', '/ai/text', (req) => this.text(req));
    this.on('POST', '/ai/text/upload-model-api', (req) => this.upload(req));
    this.on('POST', '/ai/object_detection', (req) => this.detect(req));
    this.on('GET', '/ai/models', () => ok({ models: EMULATED_MODELS.map((m) => this.modelEntry(m)) }));
    this.on('POST', '/ai/models/download', (req) => this.download(req));
    this.on('GET', '/ai/models/status', () => ok(this.persistenceSummary()));
    this.on('GET', '/ai/models/loading-status', () => ok(this.loadingStatus()));
    this.on('GET', '/ai/models/diagnostics', () => ok(this.diagnostics()));
    this.on('POST', '/ai/models/cleanup', () => {
      const cleanedModels = this.staleRecords;
      this.staleRecords = 0;
      return ok({ success: true, message: 'Cleanup completed', cleanedModels });
    });
    this.on('GET', '/ai/models/:name/status', (_req, _url, p) => this.modelStatus(p.name!));
    this.on('DELETE', '/ai/models/:name', (_req, _url, p) => this.removeModel(p.name!));
    this.on('POST', '/display', (req) => this.display(req));
  }

  /** On the phone and not marked failed. */
  private available(id: string): boolean {
    return this.downloaded.has(id) && !this.failed.has(id);
  }

  private status(): unknown {
    const m = this.currentModel;
    return {
      status: 'running',
      timestamp: Date.now(),
      server: 'AI Phone Server',
      version: '1.0.0-ai-enabled',
      features: { location: this.locationPermission, orientation: true, camera: this.cameraPermission, ai: this.usableCount() > 0 },
      permissions: { location: this.locationPermission, camera: this.cameraPermission },
      ai: {
        isEnabled: this.usableCount() > 0,
        downloadedModels: this.usableCount(),
        totalModels: 5,
        currentModel: m?.displayName,
        currentModelDetails: m && { name: m.id, displayName: m.displayName, description: `${m.displayName} on device`, supportsVision: m.vision, preferredBackend: 'CPU', loadedAt: Date.now(), isReady: true },
        hasAuthentication: false,
        supportedFeatures: ['text-generation', 'camera-integration'],
        isProcessing: this.processingSince !== undefined,
        processingStartTime: this.processingSince,
        isModelLoading: this.loading !== undefined,
        modelLoadingStartTime: this.loading?.since,
      },
    };
  }

  /** The app's load limit is 60 s; progress is the share of it used so far. */
  private loadingStatus(): unknown {
    if (!this.loading) return { isLoading: false, message: 'No model is currently loading' };
    const elapsedTime = Date.now() - this.loading.since;
    return { isLoading: true, elapsedTime, timeoutTime: 60_000, progressPercentage: Math.min(99, Math.floor((elapsedTime / 60_000) * 100)), modelName: this.loading.model.displayName };
  }

  private usableCount(): number {
    return [...this.downloaded].filter((id) => !this.failed.has(id)).length;
  }

  private modelEntry(m: Model): unknown {
    return {
      name: m.id,
      displayName: m.displayName,
      description: `${m.displayName}${m.vision ? ' (text and images)' : ''}`,
      needsLicense: true,
      available: this.available(m.id),
      currentlyLoaded: this.currentModel === m,
      backend: 'CPU',
      isMultiModal: m.vision,
    };
  }

  private async text(req: ReceivedRequest): Promise<Reply> {
    if (!this.storagePermission) return aiError(403, 'Storage permission not granted', 'STORAGE_PERMISSION_DENIED', 'Grant storage access to read model files');
    let body: unknown;
    try {
      body = JSON.parse(req.body);
    } catch (err) {
      return aiError(500, 'AI text generation failed', 'AI_ERROR', (err as Error).message);
    }
    if (!isObject(body)) return aiError(500, 'AI text generation failed', 'AI_ERROR', 'request body is not an object');
    const unparsable = gsonIntProblem(body, ['maxTokens', 'topK']) ?? (isObject(body.captureConfig) ? gsonIntProblem(body.captureConfig, ['quality', 'maxWidth', 'maxHeight']) : undefined);
    if (unparsable) return aiError(500, 'AI text generation failed', 'AI_ERROR', unparsable);
    if (typeof body.model !== 'string') return aiError(400, 'AI service error', 'AI_SERVICE_ERROR', 'model must not be null');
    const known = findModel(body.model);
    const model = known && !this.unknownToApp.has(known.id) ? known : EMULATED_MODELS[0]!;
    if (!this.downloaded.has(model.id)) {
      return aiError(404, 'AI model not available', 'MODEL_NOT_AVAILABLE', `${model.displayName} is not on the device: ${model.fileName} was not found in Download/local_ai_models`);
    }
    if (typeof body.text !== 'string') return aiError(400, 'AI service error', 'AI_SERVICE_ERROR', 'text must not be null');
    if (this.failsToLoad.has(model.id)) {
      this.failed.add(model.id);
      return aiError(
        400,
        'AI service error',
        'AI_SERVICE_ERROR',
        `Failed to load model ${model.displayName}\njava.lang.IllegalStateException: Failed to initialize engine: ${model.fileName}\n\tat com.google.mediapipe.tasks.genai.llminference.LlmInference.createFromOptions`,
      );
    }
    let image: Buffer | undefined;
    if (typeof body.image === 'string') {
      if (!/^[A-Za-z0-9+/\s]+={0,2}$/.test(body.image)) return aiError(400, 'AI service error', 'AI_SERVICE_ERROR', 'Invalid image data');
      image = Buffer.from(body.image, 'base64');
    } else if (isObject(body.captureConfig)) {
      if (!this.cameraPermission) return aiError(400, 'AI service error', 'AI_SERVICE_ERROR', 'Failed to capture image: Camera permission not granted');
      image = frameBytes(String(body.captureConfig.camera ?? 'rear'));
    }
    if (this.currentModel !== model && this.loadGate) {
      this.loading = { model, since: Date.now() };
      try {
        await this.loadGate();
      } finally {
        this.loading = undefined;
      }
    }
    this.currentModel = model;
    this.textInFlight += 1;
    this.processingSince ??= Date.now();
    this.maxTextInFlight = Math.max(this.maxTextInFlight, this.textInFlight);
    try {
      await this.textGate?.();
    } finally {
      this.textInFlight -= 1;
      if (this.textInFlight === 0) this.processingSince = undefined;
    }
    const multimodal = image !== undefined && model.vision;
    let output = `You said: ${body.text}`;
    if (multimodal) output += ` [looked at ${image!.length} image bytes]`;
    else if (image) output += ' [Image Context: the model cannot see images]';
    let thinking: string | undefined;
    if (model.thinking) thinking = `The user wrote <${body.text}> & wants an answer = echo`;
    this.currentModel = model;
    const num = (v: unknown, d: number) => (typeof v === 'number' ? v : d);
    // returnImage: a new rear-camera photo after generating. Gson leaves imageScaling null when it
    // is omitted or not exactly an enum name, and the attach step then fails; so does the camera.
    // Either failure leaves `image` out without a word.
    const returned =
      body.returnImage === true && typeof body.imageScaling === 'string' && Object.hasOwn(SCALING, body.imageScaling) && this.cameraPermission
        ? dataUri(frameBytes('rear'))
        : undefined;
    return ok({
      response: output,
      model: model.id,
      thinking,
      license: `Use of ${model.displayName} is subject to its model license.`,
      metadata: {
        model: model.displayName,
        inferenceTime: 1234,
        tokenCount: Math.floor((body.text.length + output.length) / 4),
        temperature: num(body.temperature, model.defaults.temperature),
        topK: num(body.topK, model.defaults.topK),
        topP: num(body.topP, model.defaults.topP),
        backend: 'CPU',
        isMultimodal: multimodal,
      },
      image: returned,
    });
  }

  private detect(req: ReceivedRequest): Reply {
    // Content negotiation: without the JSON content type (or with a bad body) every field defaults.
    let body: Record<string, unknown> = {};
    if ((req.headers['content-type'] ?? '').startsWith('application/json')) {
      try {
        const parsed = JSON.parse(req.body);
        // A field Gson cannot read (an Int beyond 32 bits) fails the whole receive: all defaults.
        if (isObject(parsed) && gsonIntProblem(parsed, ['maxResults']) === undefined) body = parsed;
      } catch {
        body = {};
      }
    }
    const side = typeof body.side === 'string' ? body.side : 'rear';
    const threshold = typeof body.threshold === 'number' ? body.threshold : 0.5;
    const maxResults = typeof body.maxResults === 'number' ? body.maxResults : 10;
    const base = { inferenceTime: 0, captureTime: 0, threshold };
    const scaled = SCALING[scaling(body.imageScaling)]!;
    if (!this.cameraPermission) return { status: 403, json: { success: false, objects: [], error: 'Camera permission not granted', ...base } };
    const camera = side.toLowerCase();
    if (camera !== 'rear' && camera !== 'front') {
      return ok({ success: false, objects: [], error: `Invalid camera side: ${side}. Use 'front' or 'rear'`, ...base });
    }
    const valid = threshold >= 0 && threshold <= 1;
    const objects = valid
      ? DETECTIONS.filter((d) => d.score >= threshold)
          .slice(0, maxResults)
          .map((d) => {
            const [left, top, right, bottom] = d.box as [number, number, number, number];
            return { category: d.category, score: d.score, boundingBox: { left, top, right, bottom, width: right - left, height: bottom - top }, categoryIndex: d.categoryIndex };
          })
      : [];
    return ok({
      success: true,
      objects,
      inferenceTime: 38,
      captureTime: 120,
      threshold,
      imageMetadata: { width: scaled.side, height: (scaled.side * 3) / 4, rotation: 90, camera, timestamp: Date.now() },
      image: body.returnImage === true ? dataUri(frameBytes(camera)) : undefined,
    });
  }

  private capture(url: URL): Reply {
    if (!this.cameraPermission) return deviceError(403, 'Camera permission not granted', 'PERMISSION_DENIED', 'Grant camera access in the app');
    const side = (url.searchParams.get('side') ?? 'rear').toLowerCase();
    if (side !== 'rear' && side !== 'front') return deviceError(400, 'Failed to capture image', 'CAPTURE_FAILED', `Invalid camera side: ${side}`);
    const zoomText = url.searchParams.get('zoom');
    // Kotlin's toFloatOrNull: a whole Java float literal or null (ignored), so `2x` is no zoom, not 2.
    const zoom = zoomText !== null && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?$/.test(zoomText) ? Number.parseFloat(zoomText) : undefined;
    const imageScaling = scaling(url.searchParams.get('imageScaling') ?? undefined);
    const { side: width, quality } = SCALING[imageScaling]!;
    return ok({
      success: true,
      image: dataUri(frameBytes(side, zoom)),
      metadata: { side, zoom, originalWidth: 4000, originalHeight: 3000, outputWidth: width, outputHeight: (width * 3) / 4, rotation: 90, imageScaling, quality, timestamp: Date.now(), captureTime: 95, cached: false },
    });
  }

  private download(req: ReceivedRequest): Reply {
    if (!this.storagePermission) return aiError(403, 'Storage permission not granted', 'STORAGE_PERMISSION_DENIED', 'Grant storage access to save models');
    let name: unknown;
    try {
      if (!(req.headers['content-type'] ?? '').startsWith('application/json')) throw new Error('Content-Type must be application/json');
      name = (JSON.parse(req.body) as Record<string, unknown>).modelName;
      if (typeof name !== 'string') throw new Error('modelName is required');
    } catch (err) {
      return aiError(500, 'Model download failed', 'DOWNLOAD_ERROR', (err as Error).message);
    }
    const model = findModel(name as string);
    if (!model) return aiError(400, 'Invalid model name', 'INVALID_MODEL', `Unknown model: ${name as string}`);
    if (model.gated) {
      return aiError(400, 'Authentication required', 'AUTH_REQUIRED', `${model.displayName} is gated on Hugging Face: download ${model.fileName} manually from https://huggingface.co/ and add it in the app`);
    }
    if (this.downloaded.has(model.id)) return ok({ success: true, message: 'Model already downloaded', modelName: model.displayName, status: 'already_available' });
    if (this.downloadOutcome === 'network-failure') {
      return ok({ success: false, message: 'Download failed: connection reset by peer', modelName: model.displayName, status: 'download_failed', downloadUrl: `https://example.invalid/${model.fileName}` });
    }
    this.downloaded.add(model.id);
    return ok({ success: true, message: 'Download completed successfully', modelName: model.displayName, status: 'download_started', persistenceInfo: { downloadStatus: 'COMPLETED', fileSize: 1_234_567 } });
  }

  private persistenceSummary(): unknown {
    const files = EMULATED_MODELS.filter((m) => this.downloaded.has(m.id));
    return {
      totalModels: 5,
      downloadedModels: this.downloaded.size,
      loadedModels: this.currentModel ? 1 : 0,
      totalDownloadSize: this.downloaded.size * 1_234_567,
      formattedTotalSize: `${(this.downloaded.size * 1.2).toFixed(1)} MB`,
      modelsDirectory: '/storage/emulated/0/Download/local_ai_models',
      availableModels: files.map((m) => ({ modelName: m.id, downloadPath: `/storage/emulated/0/Download/local_ai_models/${m.fileName}`, fileSize: 1_234_567, downloadStatus: 'COMPLETED' })),
      statistics: {},
    };
  }

  /** Camera and location follow the permissions; the version is not /status's. */
  private capabilities(): unknown {
    const feature = (available: boolean, endpoints: string[], methods: string[], description: string) => ({ available, endpoints: available ? endpoints : [], methods: available ? methods : [], description });
    return {
      server: 'AI Phone Server',
      version: '1.0.0-simplified',
      capabilities: {
        location: { ...feature(this.locationPermission, ['/location'], ['GET'], this.locationPermission ? 'GPS location data' : 'Location permission not granted'), backgroundAccess: false },
        orientation: feature(true, ['/orientation'], ['GET'], 'Device compass/orientation data'),
        camera: feature(this.cameraPermission, ['/capture'], ['GET'], this.cameraPermission ? 'Camera capture' : 'Camera permission not granted'),
        health: feature(true, ['/status', '/health'], ['GET'], 'Server status and health information'),
        ai: { available: this.usableCount() > 0, endpoints: ['/ai/text', '/ai/models', '/ai/models/status'], methods: ['GET', 'POST'], description: 'LLM text generation' },
        display: feature(true, ['/display'], ['POST'], 'Full-screen text display'),
      },
      features: { location: this.locationPermission, orientation: true, camera: this.cameraPermission, ai: this.usableCount() > 0, display: true },
      port: 8005,
      timestamp: Date.now(),
    };
  }

  /**
   * The app fetches any URL into Download/local_ai_models/<fileName>; a file name of a catalogue
   * model makes that model available. A file already there is not fetched (nor checked); a
   * failed fetch is HTTP 200 with success:false and status ERROR. No storage permission check.
   */
  private upload(req: ReceivedRequest): Reply {
    let body: unknown;
    try {
      body = JSON.parse(req.body);
    } catch (err) {
      return aiError(500, 'Model upload failed', 'UPLOAD_ERROR', (err as Error).message);
    }
    const field = (k: string) => (isObject(body) && typeof body[k] === 'string' ? (body[k] as string) : undefined);
    const [url, name, fileName] = [field('url'), field('name'), field('fileName')];
    if (url === undefined || name === undefined || fileName === undefined) return { status: 400, json: { error: 'Missing required fields', code: 'INVALID_REQUEST', required: ['url', 'name', 'fileName'] } };
    const model = EMULATED_MODELS.find((m) => m.fileName === fileName);
    const path = `/storage/emulated/0/Download/local_ai_models/${fileName}`;
    if (model && this.downloaded.has(model.id)) {
      return ok({ success: true, message: 'Model file already exists, reference created', model: { name, fileName, url, size: '1.2 MB', path }, status: 'ALREADY_EXISTS' });
    }
    this.uploads.push(url);
    if (this.downloadOutcome === 'network-failure' || !/^https?:\/\//.test(url)) {
      return ok({ success: false, error: `Download failed: ${/^https?:\/\//.test(url) ? 'connection reset by peer' : `unknown protocol: ${url.split(':')[0]}`}`, model: { name, fileName, url }, status: 'ERROR' });
    }
    if (model) this.downloaded.add(model.id);
    return ok({ success: true, message: 'Model downloaded and referenced successfully', model: { name, fileName, url, size: '1.2 MB', path }, status: 'DOWNLOADED' });
  }

  private modelStatus(name: string): Reply {
    const model = findModel(name);
    if (!model) return aiError(404, 'Model not found', 'MODEL_NOT_FOUND', `Unknown model: ${name}`);
    if (!this.downloaded.has(model.id)) return aiError(404, 'Model not downloaded', 'MODEL_NOT_DOWNLOADED', `${model.displayName} is not on the device`);
    return ok({ downloadPath: `/storage/emulated/0/Download/local_ai_models/${model.fileName}`, fileSize: 1_234_567, formattedSize: '1.2 MB', downloadTimestamp: 1, lastAccessedTimestamp: 2, isLoaded: this.currentModel === model, downloadStatus: 'COMPLETED', ageInDays: 0 });
  }

  /**
   * The app removes whatever it has of the model (unloading it first) and answers success even
   * when the model was not on the phone.
   */
  private removeModel(name: string): Reply {
    const model = findModel(name);
    if (!model) return aiError(404, 'Model not found', 'MODEL_NOT_FOUND', `Model '${name}' is not supported`);
    if (this.currentModel === model) this.currentModel = undefined;
    this.downloaded.delete(model.id);
    this.failed.delete(model.id);
    return ok({ success: true, message: 'Model removed successfully', modelName: name });
  }

  /** 403 without the permission (always, in the current build), 503 without a fix. */
  private location(): Reply {
    if (!this.locationPermission) return deviceError(403, 'Location permission not granted', 'PERMISSION_DENIED', 'Location access requires user permission');
    const fix = this.locationFix;
    if (!fix) return deviceError(503, 'Location not available', 'LOCATION_UNAVAILABLE', 'GPS location is not currently available');
    return ok({ latitude: fix.latitude, longitude: fix.longitude, altitude: fix.altitude, accuracy: fix.accuracy, timestamp: fix.time, provider: fix.provider, backgroundAccess: false });
  }

  /** The app's report is one multi-line text (with emoji and a line of `=`), beside a summary object. */
  private diagnostics(): unknown {
    const lines = [
      '🔍 AI Model Permission & Storage Diagnostics',
      '='.repeat(52),
      '📱 Device Info:',
      '   Android Version: 14 (API 34)',
      '',
      '🔐 Permission Status:',
      `   Storage Permissions: ${this.storagePermission}`,
      `   Enhanced Storage: ${this.storagePermission}`,
      '',
      '📂 Storage Directory Analysis:',
      '   1. Priority: HIGH (Most Persistent)',
      '      Path: /storage/emulated/0/Download/local_ai_models',
      `      Write Test: ${this.storagePermission ? '✅ SUCCESS' : '❌ FAILED'}`,
    ];
    return {
      timestamp: Date.now(),
      diagnostics: `${lines.join('\n')}\n`,
      summary: {
        hasStoragePermissions: this.storagePermission,
        hasEnhancedStoragePermissions: this.storagePermission,
        availableModels: EMULATED_MODELS.filter((m) => this.available(m.id)).length,
        totalModels: EMULATED_MODELS.length,
        androidVersion: 34,
      },
    };
  }

  /**
   * POST /display as the app handles it: the body read as a JSON map (another content type or
   * a bad body: 500 INTERNAL_ERROR), blank text 400 MISSING_TEXT, a color Android's parser
   * refuses 400 DISPLAY_FAILED, a numeric duration truncated to whole ms and echoed as sent but
   * shown clamped to 100…30000 ms.
   */
  private display(req: ReceivedRequest): Reply {
    const fail = (status: number, error: string, code: string): Reply => ({ status, json: { success: false, error, code } });
    let body: Record<string, unknown>;
    try {
      if (!(req.headers['content-type'] ?? '').startsWith('application/json')) throw new Error(`Content type ${req.headers['content-type'] ?? '(none)'} is not supported`);
      const parsed = JSON.parse(req.body);
      if (!isObject(parsed)) throw new Error('Expected a JSON object');
      body = parsed;
    } catch (err) {
      return fail(500, `Failed to show display: ${(err as Error).message}`, 'INTERNAL_ERROR');
    }
    const text = body.text === undefined || body.text === null ? '' : kotlinString(body.text);
    if (text.trim() === '') return fail(400, 'Text parameter is required and cannot be empty', 'MISSING_TEXT');
    const backgroundColor = body.backgroundColor === undefined || body.backgroundColor === null ? '#000000' : kotlinString(body.backgroundColor);
    const textColor = body.textColor === undefined || body.textColor === null ? '#FFFFFF' : kotlinString(body.textColor);
    const duration = typeof body.duration === 'number' ? Math.trunc(body.duration) : 3000;
    if (!androidColor(backgroundColor)) return fail(400, `Invalid background color format: ${backgroundColor}`, 'DISPLAY_FAILED');
    if (!androidColor(textColor)) return fail(400, `Invalid text color format: ${textColor}`, 'DISPLAY_FAILED');
    this.displays.push({ text, backgroundColor, textColor, duration: Math.min(30_000, Math.max(100, duration)) });
    return ok({ success: true, message: 'Display started successfully', displayId: `display_${Date.now()}`, parameters: { text, backgroundColor, textColor, duration } });
  }
}

/** Android's Color.parseColor: `#` with 6 or 8 hex digits, or one of its names (any case); the app adds `transparent`. */
function androidColor(value: string): boolean {
  const names = ['black', 'darkgray', 'gray', 'lightgray', 'white', 'red', 'green', 'blue', 'yellow', 'cyan', 'magenta', 'aqua', 'fuchsia', 'darkgrey', 'grey', 'lightgrey', 'lime', 'maroon', 'navy', 'olive', 'purple', 'silver', 'teal', 'transparent'];
  return /^#([0-9a-f]{6}|[0-9a-f]{8})$/i.test(value) || names.includes(value.toLowerCase());
}

/** Kotlin's toString of a value Gson read into a Map: numbers are Doubles (5 -> "5.0"). */
function kotlinString(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? `${value}.0` : String(value);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function help(): unknown {
  const endpoint = (description: string, extra: Record<string, unknown> = {}) => ({ description, permissions: [], ...extra });
  return {
    server: 'AI Phone Server API Documentation',
    version: '1.0.0-ai-enabled',
    base_url: 'http://localhost:8005',
    endpoints: {
      'GET /status': endpoint('Server status, permissions and AI state'),
      'GET /orientation': endpoint('Compass orientation', { sample_response: { azimuth: 0, pitch: 0, roll: 0, accuracy: 3 } }),
      'GET /capture': endpoint('Camera snapshot; the app must be in the foreground'),
      'POST /ai/text': endpoint('On-device text generation', { request_body: { prompt: 'string', model: 'gemma-2b-it-cpu' } }),
      'POST /ai/object_detection': endpoint('Object detection on a camera frame'),
      'GET /ai/models': endpoint('Model catalogue'),
      'POST /ai/models/download': endpoint('Download a model', { sample_response: { status: 'auth_required' } }),
    },
    common_errors: { '403 Forbidden': 'a permission is missing', '404 Not Found': 'model or endpoint missing' },
    authentication: 'None: access is governed by the app permissions only',
    content_types: 'application/json',
    cors: 'any origin',
    notes: ['AI features need 3 GB of RAM or more'],
  };
}

function preflight(method: string, requestedHeaders: string | string[] | undefined): Reply {
  const headers = String(requestedHeaders ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '');
  if (!CORS_METHODS.has(method) || !headers.every((h) => CORS_HEADERS.has(h))) return { status: 403 };
  return {
    status: 200,
    headers: {
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'OPTIONS',
      'access-control-allow-headers': 'Authorization, Content-Type',
      'access-control-max-age': '86400',
    },
  };
}

/**
 * What Gson says of a field of a Kotlin `Int` that is not one (a fraction, a number beyond 32
 * bits, a non-numeric string), or undefined when every named field is absent, null or fine.
 */
function gsonIntProblem(body: Record<string, unknown>, fields: string[]): string | undefined {
  for (const field of fields) {
    const v = body[field];
    if (v === undefined || v === null) continue;
    const n = typeof v === 'string' && /^[+-]?\d+$/.test(v) ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < -(2 ** 31) || n > 2 ** 31 - 1) {
      return `com.google.gson.JsonSyntaxException: java.lang.NumberFormatException: Expected an int but was ${JSON.stringify(v)} at path $.${field}`;
    }
  }
  return undefined;
}

/** Whether an Accept header lets a JSON converter answer (no header: any converter may). */
function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((item) => {
    const [range, ...params] = item.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    if (q !== undefined && Number(q.slice(2)) === 0) return false;
    return range === '*/*' || range === 'application/*' || range === 'application/json';
  });
}

function findModel(name: string): Model | undefined {
  return EMULATED_MODELS.find((m) => m.id === name || m.displayName === name);
}

function ok(json: unknown): Reply {
  return { status: 200, json };
}

function aiError(status: number, error: string, code: string, details?: string): Reply {
  return { status, json: { error, code, details } };
}

function deviceError(status: number, error: string, code: string, description: string): Reply {
  return { status, json: { error, code, description } };
}

function dataUri(bytes: Buffer): string {
  return `data:image/jpeg;base64,${bytes.toString('base64')}`;
}

/** Gson with pretty printing: 2-space indent, null members dropped, HTML-sensitive characters escaped. */
export function gson(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (v === null ? undefined : v), 2).replace(/[<>&=']/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function matchPattern(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    if (p.startsWith(':')) params[p.slice(1)] = decodeURIComponent(parts[i]!);
    else if (p !== parts[i]) return undefined;
  }
  return params;
}

function paramCount(pattern: string[]): number {
  return pattern.filter((p) => p.startsWith(':')).length;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
