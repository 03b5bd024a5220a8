/**
 * Contract cases B-01…B-29 of docs/clients-spec.md over loopback HTTP: each checks what the
 * emulator puts on the wire (as the real AI Phone Server does) and how DeviceClient handles it.
 */
import { describe, expect, it } from 'vitest';

import {
  DeviceClient,
  decodeDataUri,
  InvalidArgumentError,
  MAX_IMAGE_BYTES,
  MODELS,
  ServiceFailureError,
  ServiceHttpError,
  ServiceProtocolError,
  ServiceTimeoutError,
  ServiceUnavailableError,
  type DetectionReply,
  type DeviceCallOptions,
  type DownloadReply,
  type Orientation,
} from '../../ts/clients/device/index.js';
import { DeviceEmulator, frameBytes } from './device-emulator.js';
import { lastJsonBody, raw, rawPost } from './raw-http.js';
import { emulatedDevice } from './emulated.js';
import { rejection, requestsReceived } from './expect-errors.js';

let emu: DeviceEmulator;
let client: DeviceClient;
emulatedDevice((e, c) => {
  emu = e;
  client = c;
});

const get = (path: string, headers?: Record<string, string>) => raw(emu.url, path, { headers });
const post = (path: string, body: unknown, headers?: Record<string, string>) => rawPost(emu.url, path, body, headers);
const lastBody = () => lastJsonBody(emu);

describe('device contract', () => {
  it('B-01 /health is healthy with three services available', async () => {
    const r = await get('/health');
    expect(r.status).toBe(200);
    const body = JSON.parse(r.body);
    expect(body.status).toBe('healthy');
    expect(body.services).toEqual({ location: 'available', orientation: 'available', camera: 'available' });
  });

  it('B-02 /status: running, version, five models, no authentication, unset keys absent', async () => {
    const r = await get('/status');
    const body = JSON.parse(r.body);
    expect(body).toMatchObject({ status: 'running', server: 'AI Phone Server', version: '1.0.0-ai-enabled', ai: { totalModels: 5, hasAuthentication: false } });
    expect('currentModel' in body.ai).toBe(false);
    expect(r.body).not.toContain('null');
    const status = await client.status();
    expect(status.status).toBe('running');
    expect(status.ai?.totalModels).toBe(5);
    expect(status.ai?.currentModel).toBeUndefined();
  });

  it('B-03 /help: base_url, endpoint keys, authentication text', async () => {
    const body = JSON.parse((await get('/help')).body);
    expect(body.base_url).toBe('http://localhost:8005');
    expect(Object.keys(body.endpoints)).toContain('POST /ai/text');
    expect(typeof body.authentication).toBe('string');
    const help = await client.help();
    expect(Object.keys(help.endpoints!)).toContain('POST /ai/text');
  });

  it('B-04 /ai/models: five models in catalogue order, only GEMMA_3_1B_IT multimodal, all CPU', async () => {
    const body = JSON.parse((await get('/ai/models')).body);
    expect(body.models.map((m: { name: string }) => m.name)).toEqual(MODELS.map((m) => m.id));
    expect(body.models.filter((m: { isMultiModal: boolean }) => m.isMultiModal).map((m: { name: string }) => m.name)).toEqual(['GEMMA_3_1B_IT']);
    expect(body.models.every((m: { backend: string }) => m.backend === 'CPU')).toBe(true);
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    const models = await client.models();
    expect(models.map((m) => [m.name, m.available])).toEqual(MODELS.map((m) => [m.id, m.id === 'TINYLLAMA_1_1B_CHAT']));
    expect(models.map((m) => m.displayName)).toEqual(MODELS.map((m) => m.displayName));
  });

  it('B-05 text with a model not on the phone: 404 MODEL_NOT_AVAILABLE naming model and file', async () => {
    const r = await post('/ai/text', { text: 'hi', model: 'TINYLLAMA_1_1B_CHAT' });
    expect(r.status).toBe(404);
    const body = JSON.parse(r.body);
    expect(body).toMatchObject({ error: 'AI model not available', code: 'MODEL_NOT_AVAILABLE' });
    expect(body.details).toContain('TinyLlama 1.1B Chat');
    expect(body.details).toMatch(/\.task/);
    const err = await rejection(() => client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT' }), ServiceHttpError);
    expect([err.status, err.errorCode]).toEqual([404, 'MODEL_NOT_AVAILABLE']);
    expect(err.message).toContain('TinyLlama 1.1B Chat');
    expect(err.message).toContain('download it first (heapql device download TINYLLAMA_1_1B_CHAT, or downloadModel())');
  });

  it('B-06 text with the model present: response, model id, display name in metadata, license, no success, no thinking', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    const body = JSON.parse((await post('/ai/text', { text: 'hi', model: 'TINYLLAMA_1_1B_CHAT' })).body);
    expect(body).toMatchObject({ model: 'TINYLLAMA_1_1B_CHAT', metadata: { model: 'TinyLlama 1.1B Chat', isMultimodal: false } });
    expect(typeof body.license).toBe('string');
    expect('success' in body).toBe(false);
    expect('thinking' in body).toBe(false);
    const reply = await client.text({ text: 'hello there', model: 'TINYLLAMA_1_1B_CHAT', maxTokens: 64 });
    expect(reply.response).toBe('You said: hello there');
    expect(reply.model).toBe('TINYLLAMA_1_1B_CHAT');
    expect(reply.thinking).toBeUndefined();
    expect(lastBody()).toEqual({ text: 'hello there', model: 'TINYLLAMA_1_1B_CHAT', maxTokens: 64 });
    expect(emu.requests.at(-1)!.headers['content-type']).toBe('application/json');
    expect(emu.requests.at(-1)!.headers.accept).toBe('application/json');
  });

  it('B-07 the display name resolves like the id (the client sends the id)', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    const body = JSON.parse((await post('/ai/text', { text: 'hi', model: 'TinyLlama 1.1B Chat' })).body);
    expect(body.model).toBe('TINYLLAMA_1_1B_CHAT');
    const reply = await client.text({ text: 'hi', model: 'TinyLlama 1.1B Chat' });
    expect(reply.model).toBe('TINYLLAMA_1_1B_CHAT');
    expect(lastBody().model).toBe('TINYLLAMA_1_1B_CHAT');
  });

  it('B-08 an unknown name silently becomes GEMMA_3_1B_IT at the server; the client refuses it unsent', async () => {
    const r = await post('/ai/text', { text: 'hi', model: 'gemma-2b-it-cpu' });
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body).details).toContain('Gemma 3n E2B IT');
    emu.reset();
    const err = await rejection(() => client.text({ text: 'hi', model: 'gemma-2b-it-cpu' }), InvalidArgumentError);
    expect(err.message).toContain('TINYLLAMA_1_1B_CHAT (TinyLlama 1.1B Chat)');
    expect(err.exitCode).toBe(2);
    expect(emu.requests).toEqual([]);
  });

  it('B-09 a body that is not JSON: 500 AI_ERROR', async () => {
    const r = await post('/ai/text', '{not json');
    expect(r.status).toBe(500);
    expect(JSON.parse(r.body)).toMatchObject({ code: 'AI_ERROR', error: 'AI text generation failed' });
  });

  it('B-10 no model: 400 AI_SERVICE_ERROR; the client always sends one', async () => {
    const r = await post('/ai/text', { text: 'hi' });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).code).toBe('AI_SERVICE_ERROR');
    await rejection(() => client.text({ text: 'hi', model: undefined as unknown as string }), InvalidArgumentError);
    expect(emu.requests.filter((q) => q.path === '/ai/text')).toHaveLength(1);
  });

  it('B-11 "prompt" instead of "text": 400 AI_SERVICE_ERROR; the client sends "text"', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    const r = await post('/ai/text', { prompt: 'hi', model: 'TINYLLAMA_1_1B_CHAT' });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).code).toBe('AI_SERVICE_ERROR');
    await client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT' });
    expect(Object.keys(lastBody())).toEqual(['text', 'model']);
    // A 400 reaching the client carries code and details.
    const err = await rejection(() => client.text({ text: 'hi', model: 'DEEPSEEK_R1_DISTILL_QWEN_1_5B' }), ServiceHttpError);
    expect(err.status).toBe(404);
  });

  it('B-12 storage permission off: 403 STORAGE_PERMISSION_DENIED, reported as a phone permission problem', async () => {
    emu.storagePermission = false;
    const r = await post('/ai/text', { text: 'hi', model: 'TINYLLAMA_1_1B_CHAT' });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).code).toBe('STORAGE_PERMISSION_DENIED');
    const err = await rejection(() => client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT' }), ServiceHttpError);
    expect(err.errorCode).toBe('STORAGE_PERMISSION_DENIED');
    expect(err.message).toContain('grant it in the AI Phone Server app');
  });

  it('B-13 a gated model cannot be downloaded: 400 AUTH_REQUIRED', async () => {
    const r = await post('/ai/models/download', { modelName: 'LLAMA_3_2_1B_INSTRUCT' });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).code).toBe('AUTH_REQUIRED');
    const err = await rejection(() => client.downloadModel('Llama 3.2 1B Instruct'), ServiceHttpError);
    expect(err.errorCode).toBe('AUTH_REQUIRED');
    expect(lastBody()).toEqual({ modelName: 'LLAMA_3_2_1B_INSTRUCT' });
  });

  it('B-14 an unknown model name: 400 INVALID_MODEL naming it; the client refuses it unsent', async () => {
    const r = await post('/ai/models/download', { modelName: 'nope' });
    expect(r.status).toBe(400);
    const body = JSON.parse(r.body);
    expect(body.code).toBe('INVALID_MODEL');
    expect(body.details).toContain('nope');
    emu.reset();
    await rejection(() => client.downloadModel('nope'), InvalidArgumentError);
    expect(emu.requests).toEqual([]);
  });

  it('B-15 download: already_available / download_started / 200 success:false download_failed', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    const already = JSON.parse((await post('/ai/models/download', { modelName: 'TINYLLAMA_1_1B_CHAT' })).body);
    expect(already).toMatchObject({ success: true, status: 'already_available' });
    expect((await client.downloadModel('TINYLLAMA_1_1B_CHAT')).status).toBe('already_available');

    const fresh = await client.downloadModel('DeepSeek-R1 Distill Qwen 1.5B');
    expect(fresh).toMatchObject({ success: true, status: 'download_started', message: 'Download completed successfully' });
    // The types say what the runtime lets through (test/typecheck.test.ts checks them): a failed download throws.
    const done: { success: true; status: 'already_available' | 'download_started' } = fresh satisfies DownloadReply;
    expect(done.status).toBe('download_started');
    expect(emu.downloaded.has('DEEPSEEK_R1_DISTILL_QWEN_1_5B')).toBe(true);

    emu.reset();
    emu.downloadOutcome = 'network-failure';
    const r = await post('/ai/models/download', { modelName: 'TINYLLAMA_1_1B_CHAT' });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ success: false, status: 'download_failed' });
    expect(typeof JSON.parse(r.body).downloadUrl).toBe('string');
    const err = await rejection(() => client.downloadModel('TINYLLAMA_1_1B_CHAT'), ServiceFailureError);
    expect(err.message).toContain('Download failed: connection reset by peer (the file is at https://example.invalid/TinyLlama-1.1B-Chat-v1.0_multi-prefill-seq_q8_ekv1024.task; try again later)');
    expect(err.body.downloadUrl).toBeDefined();
    expect(err.exitCode).toBe(1);
  });

  it('B-16 model status: 404 MODEL_NOT_FOUND for an unknown name, MODEL_NOT_DOWNLOADED for an absent model', async () => {
    const unknown = await get('/ai/models/NOPE/status');
    expect([unknown.status, JSON.parse(unknown.body).code]).toEqual([404, 'MODEL_NOT_FOUND']);
    const absent = await get('/ai/models/TINYLLAMA_1_1B_CHAT/status');
    expect([absent.status, JSON.parse(absent.body).code]).toEqual([404, 'MODEL_NOT_DOWNLOADED']);
  });

  it('B-17 DELETE without Origin removes the model and echoes its name', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    const r = await raw(emu.url, '/ai/models/TINYLLAMA_1_1B_CHAT', { method: 'DELETE' });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ success: true, modelName: 'TINYLLAMA_1_1B_CHAT' });
    expect(emu.downloaded.size).toBe(0);
  });

  it('B-18 loading-status when idle', async () => {
    const body = JSON.parse((await get('/ai/models/loading-status')).body);
    expect(body.isLoading).toBe(false);
    expect(typeof body.message).toBe('string');
  });

  it('B-19 object detection with {}: success, threshold 0.5, normalized boxes, no image', async () => {
    const body = JSON.parse((await post('/ai/object_detection', {})).body);
    expect(body).toMatchObject({ success: true, threshold: 0.5 });
    expect('image' in body).toBe(false);
    for (const o of body.objects) for (const v of Object.values(o.boundingBox) as number[]) expect(v >= 0 && v <= 1).toBe(true);
    // Without the JSON content type the body is ignored: defaults.
    const ignored = JSON.parse((await post('/ai/object_detection', { threshold: 0.9 }, {})).body);
    expect(ignored.threshold).toBe(0.5);

    const result = await client.detectObjects({ threshold: 0.6, maxResults: 5 });
    expect(result.objects.map((o) => o.category)).toEqual(['person', 'cup']);
    const succeeded: true = result.success satisfies DetectionReply['success'];
    expect(succeeded).toBe(true);
    expect(lastBody()).toEqual({ side: 'rear', threshold: 0.6, maxResults: 5, returnImage: false });
    const withImage = await client.detectObjects({ side: 'front', returnImage: true, maxResults: 1 });
    expect(withImage.objects).toHaveLength(1);
    expect(Buffer.from(decodeDataUri(withImage.image!)!.bytes).equals(frameBytes('front'))).toBe(true);
    await rejection(() => client.detectObjects({ threshold: 2 }), InvalidArgumentError);
    await rejection(() => client.detectObjects({ maxResults: 0 }), InvalidArgumentError);
  });

  it('B-20 an invalid side: HTTP 200 with success:false, which the client reports as a failure', async () => {
    const r = await post('/ai/object_detection', { side: 'left' });
    expect(r.status).toBe(200);
    const body = JSON.parse(r.body);
    expect(body).toMatchObject({ success: false, objects: [] });
    expect(body.error).toMatch(/front/);
    expect(body.error).toMatch(/rear/);
    emu.reset();
    await rejection(() => client.detectObjects({ side: 'left' as 'rear' }), InvalidArgumentError);
    expect(emu.requests).toEqual([]);
    // The client never sends a bad side, but a success:false reply under 200 is an error.
    emu.override = () => ({ status: 200, json: body });
    const err = await rejection(() => client.detectObjects(), ServiceFailureError);
    expect(err.message).toContain('Invalid camera side: left');
    expect(err.body.objects).toEqual([]);
  });

  it('B-21 camera permission off: 403 with the detection shape, success:false', async () => {
    emu.cameraPermission = false;
    const r = await post('/ai/object_detection', {});
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body)).toMatchObject({ success: false, objects: [], error: 'Camera permission not granted' });
    const err = await rejection(() => client.detectObjects(), ServiceHttpError);
    expect(err.status).toBe(403);
    expect(err.message).toContain('Camera permission not granted');
  });

  it('B-22 capture: a data-URI JPEG; 400 CAPTURE_FAILED for a bad side; 403 PERMISSION_DENIED without camera', async () => {
    const r = await get('/capture?side=front&zoom=2');
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).image).toMatch(/^data:image\/jpeg;base64,/);
    expect(JSON.parse(r.body).metadata.zoom).toBe(2);
    // An unparsable zoom is ignored (Kotlin's toFloatOrNull), not read as far as it goes.
    const junk = JSON.parse((await get('/capture?zoom=2x')).body);
    expect([junk.success, 'zoom' in junk.metadata]).toEqual([true, false]);
    expect(JSON.parse((await get('/capture?zoom=1.5e0')).body).metadata.zoom).toBe(1.5);
    const bad = await get('/capture?side=left');
    expect([bad.status, JSON.parse(bad.body).code]).toEqual([400, 'CAPTURE_FAILED']);

    const shot = await client.capture({ side: 'front', zoom: 2 });
    expect(shot.mimeType).toBe('image/jpeg');
    expect(Buffer.from(shot.image).equals(frameBytes('front', 2))).toBe(true);
    expect(shot.metadata.side).toBe('front');
    expect(emu.requests.at(-1)!.path).toBe('/capture?side=front&zoom=2');
    await rejection(() => client.capture({ zoom: -1 }), InvalidArgumentError);

    emu.cameraPermission = false;
    const denied = await get('/capture');
    expect([denied.status, JSON.parse(denied.body).code]).toEqual([403, 'PERMISSION_DENIED']);
    const err = await rejection(() => client.capture(), ServiceHttpError);
    expect(err.errorCode).toBe('PERMISSION_DENIED');
  });

  it('image scaling: capture takes imageScaling (query), detection too (body); the emulator sizes the frame by it, an unknown one is MEDIUM', async () => {
    const sized = (q: string) => get(`/capture${q}`).then((r) => JSON.parse(r.body).metadata);
    expect(await sized('?imageScaling=large')).toMatchObject({ imageScaling: 'LARGE', outputWidth: 2048, quality: 90 });
    expect(await sized('?imageScaling=huge')).toMatchObject({ imageScaling: 'MEDIUM', outputWidth: 1024, quality: 85 });
    expect(await sized('?imageScaling=NONE')).toMatchObject({ imageScaling: 'NONE', outputWidth: 4000, quality: 95 });

    const shot = await client.capture({ side: 'rear', imageScaling: 'SMALL' });
    expect(emu.requests.at(-1)!.path).toBe('/capture?side=rear&imageScaling=SMALL');
    expect(shot.metadata).toMatchObject({ imageScaling: 'SMALL', outputWidth: 512 });
    const detected = await client.detectObjects({ returnImage: true, imageScaling: 'ULTRA' });
    expect(lastBody()).toEqual({ side: 'rear', threshold: 0.5, maxResults: 10, returnImage: true, imageScaling: 'ULTRA' });
    expect(detected.imageMetadata).toMatchObject({ width: 4096 });
    // Zoom, as for a capture.
    await client.detectObjects({ zoom: 2.5 });
    expect(lastBody()).toEqual({ side: 'rear', threshold: 0.5, maxResults: 10, returnImage: false, zoom: 2.5 });
    await rejection(() => client.detectObjects({ zoom: 0 }), InvalidArgumentError);
    // Without it nothing is sent: the app's default, MEDIUM.
    await client.detectObjects();
    expect('imageScaling' in lastBody()).toBe(false);
    const before = emu.requests.length;
    const bad = await rejection(() => client.capture({ imageScaling: 'huge' as never }), InvalidArgumentError);
    expect(bad.message).toBe('imageScaling "huge" is invalid: use NONE, SMALL, MEDIUM, LARGE or ULTRA');
    await rejection(() => client.detectObjects({ imageScaling: 3 as never }), InvalidArgumentError);
    expect(emu.requests.length).toBe(before);
  });

  it('B-23 orientation: accuracy a string, azimuth within [0, 360]', async () => {
    const body = JSON.parse((await get('/orientation')).body);
    expect(typeof body.accuracy).toBe('string');
    expect(body.azimuth >= 0 && body.azimuth <= 360).toBe(true);
    const options: DeviceCallOptions = { signal: new AbortController().signal };
    const o = await client.orientation(options);
    expect([o.azimuth, o.pitch, o.roll, o.accuracy]).toEqual([123.5, -2.25, 1.5, 'HIGH']);
    // Typed as the values orientation() accepts (test/typecheck.test.ts checks it).
    const accuracy: 'HIGH' | 'MEDIUM' | 'LOW' | 'UNKNOWN' | undefined = o.accuracy satisfies Orientation['accuracy'];
    expect(accuracy).toBe('HIGH');
  });

  it('B-24 /location is always 403 PERMISSION_DENIED in this build', async () => {
    const r = await get('/location');
    expect([r.status, JSON.parse(r.body).code]).toEqual([403, 'PERMISSION_DENIED']);
  });

  it('B-25 /display with empty text: 400 success:false MISSING_TEXT', async () => {
    const r = await post('/display', { text: '' });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toMatchObject({ success: false, code: 'MISSING_TEXT' });
  });

  it('B-26 missing routes: 405 empty for a known path with another method, 404 empty for an unknown path', async () => {
    const test = await post('/ai/models/test', {});
    expect([test.status, test.body]).toEqual([405, '']);
    const getText = await get('/ai/text');
    expect([getText.status, getText.body]).toEqual([405, '']);
    const nope = await get('/nope');
    expect([nope.status, nope.body]).toEqual([404, '']);
    const old = new DeviceClient({ url: `${emu.url}/v0` });
    const err = await rejection(() => old.status(), ServiceHttpError);
    expect([err.status, err.bodyText]).toEqual([404, '']);
    expect(err.message).toContain('this app version has no such endpoint');
  });

  it('B-27 CORS preflight for POST: 200 with the plugin headers', async () => {
    const r = await raw(emu.url, '/ai/text', {
      method: 'OPTIONS',
      headers: { origin: 'http://example.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(r.status).toBe(200);
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.headers['access-control-allow-headers']).toBe('Authorization, Content-Type');
    expect(r.headers['access-control-max-age']).toBe('86400');
    const actual = await raw(emu.url, '/health', { headers: { origin: 'http://example.test' } });
    expect(actual.headers['access-control-allow-origin']).toBe('*');
  });

  it('B-28 CORS: a DELETE preflight, or a DELETE with Origin, is 403 empty', async () => {
    const pre = await raw(emu.url, '/ai/models/TINYLLAMA_1_1B_CHAT', {
      method: 'OPTIONS',
      headers: { origin: 'http://example.test', 'access-control-request-method': 'DELETE' },
    });
    expect([pre.status, pre.body]).toEqual([403, '']);
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    const del = await raw(emu.url, '/ai/models/TINYLLAMA_1_1B_CHAT', { method: 'DELETE', headers: { origin: 'http://example.test' } });
    expect([del.status, del.body]).toEqual([403, '']);
    expect(emu.downloaded.has('TINYLLAMA_1_1B_CHAT')).toBe(true);
  });

  it('B-29 JSON replies are pretty-printed application/json; charset=UTF-8 with Gson escapes; the client parses them', async () => {
    emu.downloaded.add('DEEPSEEK_R1_DISTILL_QWEN_1_5B');
    const r = await post('/ai/text', { text: "a<b & c='d'", model: 'DEEPSEEK_R1_DISTILL_QWEN_1_5B' });
    expect(r.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(r.body).toContain('\n  "');
    expect(r.body).toContain('\\u003c');
    expect(r.body).not.toMatch(/[<>&=']/);
    const reply = await client.text({ text: "a<b & c='d'", model: 'DeepSeek-R1 Distill Qwen 1.5B' });
    expect(reply.response).toBe("You said: a<b & c='d'");
    expect(reply.thinking).toBe("The user wrote <a<b & c='d'> & wants an answer = echo");
  });
});

describe('device quirks beyond the contract cases', () => {
  it('B.1 an Accept that excludes JSON finds no converter and the reply is an error; the client always accepts JSON', async () => {
    for (const accept of ['text/plain', 'text/html, text/*;q=0.5', 'image/jpeg']) {
      const r = await get('/status', { accept });
      expect(r.status, accept).toBe(500);
      expect(r.body, accept).toBe('');
    }
    for (const accept of ['application/json', '*/*', 'application/*', 'text/plain, application/json;q=0.1']) {
      expect((await get('/status', { accept })).status, accept).toBe(200);
    }
    // No Accept at all: every converter is acceptable.
    expect((await get('/status')).status).toBe(200);
    emu.requests.length = 0;
    await client.status();
    await client.orientation();
    for (const req of emu.requests) expect(req.headers.accept).toBe('application/json');
  });

  it('B.6 /status says a generation is running (isProcessing, processingStartTime) while one is; a timed-out one points there', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    let release!: () => void;
    emu.textGate = () => new Promise<void>((resolve) => (release = resolve));
    const quick = new DeviceClient({ url: emu.url, timeouts: { text: 200 } });
    const err = await rejection(() => quick.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT' }), ServiceTimeoutError);
    expect(err.message).toContain('a generation may still be running on the phone (heapql device status shows it)');
    const busy = await client.status();
    expect(busy.ai?.isProcessing).toBe(true);
    expect(typeof busy.ai?.processingStartTime).toBe('number');
    release();
    for (let i = 0; i < 200 && (await client.status()).ai?.isProcessing; i++) await new Promise((r) => setTimeout(r, 5));
    const idle = await client.status();
    expect(idle.ai?.isProcessing).toBe(false);
    expect('processingStartTime' in (idle.ai ?? {})).toBe(false);
  });
});

describe('health, a model file and model loading through the client', () => {
  it('B-01 health(): healthy, with the three services', async () => {
    const h = await client.health();
    expect(h.status).toBe('healthy');
    expect(h.services).toEqual({ location: 'available', orientation: 'available', camera: 'available' });
    emu.override = () => ({ status: 200, json: { status: 'degraded' } });
    const odd = await rejection(() => client.health(), ServiceProtocolError);
    expect(odd.message).toContain('expected "status": "healthy"');
  });

  it('B-16 modelStatus(): the file of a model on the phone; one not there is a 404 MODEL_NOT_DOWNLOADED with advice', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    const file = await client.modelStatus('TinyLlama 1.1B Chat');
    expect(emu.requests.at(-1)!.path).toBe('/ai/models/TINYLLAMA_1_1B_CHAT/status');
    expect(file).toMatchObject({ downloadStatus: 'COMPLETED', isLoaded: false });
    expect(typeof file.fileSize).toBe('number');
    const absent = await rejection(() => client.modelStatus('DEEPSEEK_R1_DISTILL_QWEN_1_5B'), ServiceHttpError);
    expect(absent.errorCode).toBe('MODEL_NOT_DOWNLOADED');
    expect(absent.message).toContain('— download it first (heapql device download DEEPSEEK_R1_DISTILL_QWEN_1_5B, or downloadModel())');
    const gated = await rejection(() => client.modelStatus('LLAMA_3_2_1B_INSTRUCT'), ServiceHttpError);
    expect(gated.message).toContain('install it on the phone through the AI Phone Server app');
    await expect(client.modelStatus('NOPE')).rejects.toThrow(/unknown model "NOPE"/);
    emu.override = () => ({ status: 200, json: { fileSize: 1 } });
    await rejection(() => client.modelStatus('TINYLLAMA_1_1B_CHAT'), ServiceProtocolError);
  });

  it('B.3 while a generation loads a model that is not loaded yet, loading-status and /status say so (the app allows 60 s)', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    let release!: () => void;
    emu.loadGate = () => new Promise<void>((resolve) => (release = resolve));
    const generation = client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT' });
    await requestsReceived(emu, 1);
    for (let i = 0; i < 200 && !(await client.loadingStatus()).isLoading; i++) await new Promise((r) => setTimeout(r, 5));
    const loading = await client.loadingStatus();
    expect(loading).toMatchObject({ isLoading: true, timeoutTime: 60_000, modelName: 'TinyLlama 1.1B Chat' });
    expect(loading.elapsedTime).toBeGreaterThanOrEqual(0);
    expect(loading.progressPercentage).toBeGreaterThanOrEqual(0);
    const status = await client.status();
    expect(status.ai?.isModelLoading).toBe(true);
    expect(typeof status.ai?.modelLoadingStartTime).toBe('number');
    release();
    expect((await generation).response).toBe('You said: hi');
    expect(await client.loadingStatus()).toMatchObject({ isLoading: false });
    expect((await client.status()).ai?.isModelLoading).toBe(false);
    // Loaded now: the next generation does not load it again.
    emu.loadGate = () => Promise.reject(new Error('loaded twice'));
    expect((await client.text({ text: 'again', model: 'TINYLLAMA_1_1B_CHAT' })).response).toBe('You said: again');
  });

  it('B-18 loadingStatus(): idle, or loading with its progress', async () => {
    expect(await client.loadingStatus()).toMatchObject({ isLoading: false });
    const loading = { isLoading: true, elapsedTime: 12_000, timeoutTime: 60_000, progressPercentage: 20, modelName: 'TinyLlama 1.1B Chat' };
    emu.override = () => ({ status: 200, json: loading });
    expect(await client.loadingStatus()).toEqual(loading);
    emu.override = () => ({ status: 200, json: { isLoading: 'no' } });
    await rejection(() => client.loadingStatus(), ServiceProtocolError);
  });
});

describe('a photo returned with a generation (returnImage)', () => {
  it('B.4 the app attaches a new rear photo after generating, only when imageScaling names a scaling; without it, or without the camera, silently none', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    const ask = async (extra: Record<string, unknown>) => JSON.parse((await post('/ai/text', { text: 'hi', model: 'TINYLLAMA_1_1B_CHAT', ...extra })).body);
    expect((await ask({ returnImage: true, imageScaling: 'SMALL' })).image).toBe(`data:image/jpeg;base64,${frameBytes('rear').toString('base64')}`);
    // Gson leaves an omitted (or not exactly named) enum null, and the attach step fails without a word.
    for (const extra of [{ returnImage: true }, { returnImage: true, imageScaling: 'small' }, { returnImage: false, imageScaling: 'SMALL' }, {}]) {
      const reply = await ask(extra);
      expect(reply.response, JSON.stringify(extra)).toBe('You said: hi');
      expect('image' in reply, JSON.stringify(extra)).toBe(false);
    }
    emu.cameraPermission = false;
    const blind = await ask({ returnImage: true, imageScaling: 'SMALL' });
    expect(blind.response).toBe('You said: hi');
    expect('image' in blind).toBe(false);
  });

  it('the client sends imageScaling with returnImage (MEDIUM unless given), checks the photo, and leaves image out when the app did', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    const reply = await client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT', returnImage: true });
    expect(lastBody()).toEqual({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT', returnImage: true, imageScaling: 'MEDIUM' });
    expect(decodeDataUri(reply.image!)!.bytes).toEqual(new Uint8Array(frameBytes('rear')));
    await client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT', returnImage: true, imageScaling: 'large' as never });
    expect(lastBody().imageScaling).toBe('LARGE');
    emu.cameraPermission = false;
    const without = await client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT', returnImage: true });
    expect(without.response).toBe('You said: hi');
    expect(without.image).toBeUndefined();
    emu.requests.length = 0;
    await expect(client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT', imageScaling: 'SMALL' })).rejects.toThrow(
      new InvalidArgumentError('imageScaling sizes the photo that returnImage asks for: set returnImage: true too'),
    );
    await expect(client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT', returnImage: 'yes' as never })).rejects.toThrow(/returnImage must be true or false, got a string/);
    expect(emu.requests).toEqual([]);
    emu.override = () => ({ status: 200, json: { response: 'x', model: 'TINYLLAMA_1_1B_CHAT', image: 'data:text/plain;base64,aGk=' } });
    const bad = await rejection(() => client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT', returnImage: true }), ServiceProtocolError);
    expect(bad.message).toContain('its type is text/plain, not an image');
  });
});

describe('device client behaviour', () => {
  it('images go as raw base64, only to the vision model', async () => {
    emu.downloaded.add('GEMMA_3_1B_IT');
    const bytes = new Uint8Array([0xff, 0xd8, 1, 2, 3, 0xff, 0xd9]);
    const reply = await client.text({ text: 'what is this', model: 'Gemma 3n E2B IT', image: bytes });
    expect(reply.metadata?.isMultimodal).toBe(true);
    expect(lastBody().image).toBe(Buffer.from(bytes).toString('base64'));
    await client.text({ text: 'again', model: 'GEMMA_3_1B_IT', image: `data:image/jpeg;base64,${Buffer.from(bytes).toString('base64')}` });
    expect(lastBody().image).toBe(Buffer.from(bytes).toString('base64'));
    await client.text({ text: 'look', model: 'GEMMA_3_1B_IT', captureConfig: { camera: 'front' } });
    expect(lastBody().captureConfig).toEqual({ camera: 'front' });
    const before = emu.requests.length;
    await rejection(() => client.text({ text: 'x', model: 'TINYLLAMA_1_1B_CHAT', image: bytes }), InvalidArgumentError);
    await rejection(() => client.text({ text: 'x', model: 'TINYLLAMA_1_1B_CHAT', captureConfig: {} }), InvalidArgumentError);
    await rejection(() => client.text({ text: 'x', model: 'GEMMA_3_1B_IT', image: 'not base64!' }), InvalidArgumentError);
    await rejection(() => client.text({ text: 'x', model: 'GEMMA_3_1B_IT', image: bytes, captureConfig: {} }), InvalidArgumentError);
    await rejection(() => client.text({ text: '  ', model: 'GEMMA_3_1B_IT' }), InvalidArgumentError);
    expect(emu.requests.length).toBe(before);
  });

  it('an image over MAX_IMAGE_BYTES is refused unsent, with its size; one of that size goes', async () => {
    emu.downloaded.add('GEMMA_3_1B_IT');
    const big = new Uint8Array(MAX_IMAGE_BYTES + 1);
    const err = await rejection(() => client.text({ text: 'x', model: 'GEMMA_3_1B_IT', image: big }), InvalidArgumentError);
    expect(err.message).toBe('the image is 67108865 bytes; at most 67108864 (64 MiB) are sent (a phone photo is a few MiB: scale it down)');
    const asText = Buffer.from(big).toString('base64');
    await rejection(() => client.text({ text: 'x', model: 'GEMMA_3_1B_IT', image: asText }), InvalidArgumentError);
    expect(emu.requests).toEqual([]);
    const reply = await client.text({ text: 'x', model: 'GEMMA_3_1B_IT', image: big.subarray(1) });
    expect(reply.response).toContain(`[looked at ${MAX_IMAGE_BYTES} image bytes]`);
  });

  it('generations from one client never overlap', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    emu.textGate = () => new Promise((resolve) => setTimeout(resolve, 100));
    const replies = await Promise.all(['one', 'two', 'three'].map((text) => client.text({ text, model: 'TINYLLAMA_1_1B_CHAT' })));
    expect(replies.map((r) => r.response)).toEqual(['You said: one', 'You said: two', 'You said: three']);
    expect(emu.maxTextInFlight).toBe(1);
    // A failed generation does not block the next.
    await rejection(() => client.text({ text: 'x', model: 'LLAMA_3_2_1B_INSTRUCT' }), ServiceHttpError);
    expect((await client.text({ text: 'after', model: 'TINYLLAMA_1_1B_CHAT' })).response).toBe('You said: after');
  });

  it('generations to one phone never overlap, from two clients of this process either (the app keeps one session)', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    emu.textGate = () => new Promise((resolve) => setTimeout(resolve, 50));
    const other = new DeviceClient({ url: `${emu.url}/` });
    const replies = await Promise.all([client, other, client, other].map((c, i) => c.text({ text: `n${i}`, model: 'TINYLLAMA_1_1B_CHAT' })));
    expect(replies.map((r) => r.response)).toEqual(['You said: n0', 'You said: n1', 'You said: n2', 'You said: n3']);
    expect(emu.maxTextInFlight).toBe(1);
    // Another phone (here: another emulator) has a queue of its own.
    const second = await DeviceEmulator.start();
    try {
      second.downloaded.add('TINYLLAMA_1_1B_CHAT');
      let release!: () => void;
      emu.textGate = () => new Promise<void>((resolve) => (release = resolve));
      const held = client.text({ text: 'held', model: 'TINYLLAMA_1_1B_CHAT' });
      await requestsReceived(emu, 5);
      expect((await new DeviceClient({ url: second.url }).text({ text: 'free', model: 'TINYLLAMA_1_1B_CHAT' })).response).toBe('You said: free');
      release();
      expect((await held).response).toBe('You said: held');
    } finally {
      await second.close();
    }
  });

  it('per-endpoint timeouts are typed errors', async () => {
    emu.hold = true;
    const slow = new DeviceClient({ url: emu.url, timeouts: { status: 100, text: 150 } });
    expect(slow.timeouts.download).toBe(3_600_000);
    const err = await rejection(() => slow.status(), ServiceTimeoutError);
    expect(err.timeoutMs).toBe(100);
    const t = await rejection(() => slow.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT' }), ServiceTimeoutError);
    expect(t.timeoutMs).toBe(150);
    expect(() => new DeviceClient({ timeouts: { text: -1 } })).toThrow(InvalidArgumentError);
  });

  it('a service that is down is unavailable, not a raw fetch error', async () => {
    const gone = await DeviceEmulator.start();
    const url = gone.url;
    await gone.close();
    const err = await rejection(() => new DeviceClient({ url }).orientation(), ServiceUnavailableError);
    expect(err.reason).toBe('refused');
    expect(err.message).toContain('is the AI Phone Server app running');
    expect(err.cause).toBeDefined();
  });

  it('replies of the wrong shape are protocol errors', async () => {
    emu.override = () => ({ status: 200, text: 'OK' });
    await rejection(() => client.status(), ServiceProtocolError);
    emu.override = () => ({ status: 200, json: { models: [{ name: 'X' }] } });
    await rejection(() => client.models(), ServiceProtocolError);
    // Each field the types promise is checked: a model without its display name, help entries that are no objects,
    // services that are no texts, a load's progress that is no number.
    emu.override = () => ({ status: 200, json: { models: [{ name: 'TINYLLAMA_1_1B_CHAT', available: true }] } });
    expect((await rejection(() => client.models(), ServiceProtocolError)).message).toContain('(expected a "models" list of {name, displayName, available, …})');
    emu.override = () => ({ status: 200, json: { server: 'AI Phone Server API Documentation', endpoints: { 'GET /status': 'status' } } });
    expect((await rejection(() => client.help(), ServiceProtocolError)).message).toContain('(expected "endpoints" an object of {description, …} per endpoint)');
    emu.override = () => ({ status: 200, json: { status: 'running', permissions: ['camera'] } });
    expect((await rejection(() => client.status(), ServiceProtocolError)).message).toContain('(expected "permissions" an object, got an array)');
    emu.override = () => ({ status: 200, json: { status: 'healthy', services: 'all' } });
    expect((await rejection(() => client.health(), ServiceProtocolError)).message).toContain('(expected "services" an object of texts');
    emu.override = () => ({ status: 200, json: { isLoading: true, elapsedTime: '5 s', modelName: 'TinyLlama 1.1B Chat' } });
    expect((await rejection(() => client.loadingStatus(), ServiceProtocolError)).message).toContain('(expected "elapsedTime" a number, got "5 s")');
    emu.override = () => ({ status: 200, json: { success: true, image: 'data:image/jpeg;base64,' } });
    await rejection(() => client.capture(), ServiceProtocolError);
    emu.override = () => ({ status: 200, json: { azimuth: '1', pitch: 0, roll: 0 } });
    await rejection(() => client.orientation(), ServiceProtocolError);
    emu.override = () => ({ status: 500, text: 'Internal Server Error' });
    const err = await rejection(() => client.help(), ServiceHttpError);
    expect(err.message).toContain('HTTP 500: Internal Server Error');
  });
});
