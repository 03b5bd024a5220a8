/**
 * DeviceClient's display, location, model diagnostics and model deletion over loopback HTTP:
 * what the emulator puts on the wire (as the AI Phone Server does, quirks included), what the
 * client sends and refuses unsent, and how it reports a phone that is down, odd replies and the
 * app's own errors.
 */
import { describe, expect, it } from 'vitest';

import {
  DeviceClient,
  InvalidArgumentError,
  ModelMismatchError,
  ServiceFailureError,
  ServiceHttpError,
  ServiceProtocolError,
  ServiceTimeoutError,
  ServiceUnavailableError,
} from '../../ts/clients/device/index.js';
import { DeviceEmulator } from './device-emulator.js';
import { lastJsonBody, raw, rawPost } from './raw-http.js';
import { emulatedDevice } from './emulated.js';
import { rejection } from './expect-errors.js';

let emu: DeviceEmulator;
let client: DeviceClient;
emulatedDevice((e, c) => {
  emu = e;
  client = c;
});

const post = (path: string, body: unknown, headers?: Record<string, string>) => rawPost(emu.url, path, body, headers);
const lastBody = () => lastJsonBody(emu);

describe('display (POST /display)', () => {
  it('the app: blank text 400 MISSING_TEXT, #RGB or an unknown name 400 DISPLAY_FAILED, duration echoed as sent but shown clamped, another content type 500', async () => {
    for (const text of ['', '   ', undefined]) {
      const r = await post('/display', text === undefined ? {} : { text });
      expect(r.status, JSON.stringify(text)).toBe(400);
      expect(JSON.parse(r.body), JSON.stringify(text)).toMatchObject({ success: false, code: 'MISSING_TEXT' });
    }
    for (const [field, color] of [
      ['backgroundColor', '#fff'],
      ['textColor', 'orange'],
    ] as const) {
      const r = await post('/display', { text: 'hi', [field]: color });
      expect(r.status).toBe(400);
      const body = JSON.parse(r.body);
      expect(body).toMatchObject({ success: false, code: 'DISPLAY_FAILED' });
      expect(body.error).toContain(color);
    }
    const long = JSON.parse((await post('/display', { text: 'hi', duration: 60_000.7, backgroundColor: 'Navy' })).body);
    expect(long).toMatchObject({ success: true, parameters: { text: 'hi', duration: 60_000, backgroundColor: 'Navy', textColor: '#FFFFFF' } });
    expect(long.displayId).toMatch(/^display_\d+$/);
    expect(emu.displays.at(-1)).toEqual({ text: 'hi', backgroundColor: 'Navy', textColor: '#FFFFFF', duration: 30_000 });
    const plain = await post('/display', { text: 'hi' }, { 'content-type': 'text/plain' });
    expect([plain.status, JSON.parse(plain.body).code]).toEqual([500, 'INTERNAL_ERROR']);
  });

  it('display() sends the fields given, as JSON, and returns the displayId', async () => {
    const reply = await client.display({ text: 'Build is green', backgroundColor: '#FF008800', textColor: 'white', duration: 5000 });
    expect(reply.displayId).toMatch(/^display_\d+$/);
    expect(reply.parameters).toEqual({ text: 'Build is green', backgroundColor: '#FF008800', textColor: 'white', duration: 5000 });
    expect(emu.requests.at(-1)!.headers['content-type']).toBe('application/json');
    expect(lastBody()).toEqual({ text: 'Build is green', backgroundColor: '#FF008800', textColor: 'white', duration: 5000 });
    expect(emu.displays).toEqual([{ text: 'Build is green', backgroundColor: '#FF008800', textColor: 'white', duration: 5000 }]);
    await client.display({ text: 'defaults' });
    expect(lastBody()).toEqual({ text: 'defaults' });
    expect(emu.displays.at(-1)).toEqual({ text: 'defaults', backgroundColor: '#000000', textColor: '#FFFFFF', duration: 3000 });
    // The limits themselves are fine; a name in any case too.
    await client.display({ text: 'x', duration: 100, backgroundColor: 'TRANSPARENT' });
    await client.display({ text: 'x', duration: 30_000, textColor: 'LightGrey' });
    expect(emu.displays).toHaveLength(4);
  });

  it('blank text, a color the app cannot read, a duration it would clamp, and wrong types are refused unsent', async () => {
    const refused: [unknown, string][] = [
      [{ text: '  ' }, 'the text to display is empty (or only white space), which the app refuses (MISSING_TEXT)'],
      [{ text: 5 }, 'the text to display must be a string, got the number 5'],
      [{ text: 'x', backgroundColor: '#fff' }, "the app's parser takes no #RGB: write #ffffff"],
      [{ text: 'x', textColor: 'orange' }, 'textColor "orange" is not a color the app reads: use #RRGGBB, #AARRGGBB or a color name (black,'],
      [{ text: 'x', textColor: '#12345' }, 'textColor "#12345" is not a color the app reads'],
      [{ text: 'x', backgroundColor: 0xff0000 }, 'backgroundColor must be a color string such as #FF8800 or red, got the number 16711680'],
      [{ text: 'x', duration: 99 }, 'duration 99 is invalid: use a whole number of milliseconds from 100 to 30000 (the app would quietly clamp it to that range)'],
      [{ text: 'x', duration: 30_001 }, 'duration 30001 is invalid'],
      [{ text: 'x', duration: 1500.5 }, 'duration 1500.5 is invalid'],
      [{ text: 'x', duration: '3000' }, 'duration must be a number of milliseconds, got a string ("3000")'],
      [{ text: 'x', color: 'red' }, 'a display request has no field "color": use text, backgroundColor, textColor, duration'],
      ['hello', 'a display request is an object {text, backgroundColor?, textColor?, duration?}, got a string ("hello")'],
    ];
    for (const [request, message] of refused) {
      const err = await rejection(() => client.display(request as never), InvalidArgumentError);
      expect(err.message, JSON.stringify(request)).toContain(message);
      expect(err.exitCode).toBe(2);
    }
    expect(emu.requests).toEqual([]);
  });

  it("the app's refusals and odd replies: 400 DISPLAY_FAILED, 200 success:false, no displayId, not JSON, a time-out that may have shown the text", async () => {
    emu.override = () => ({ status: 400, json: { success: false, error: 'Failed to show display: activity not found', code: 'DISPLAY_FAILED' } });
    const failed = await rejection(() => client.display({ text: 'x' }), ServiceHttpError);
    expect([failed.status, failed.errorCode]).toEqual([400, 'DISPLAY_FAILED']);
    expect(failed.message).toContain('POST /display answered HTTP 400 DISPLAY_FAILED: Failed to show display: activity not found');
    emu.override = () => ({ status: 200, json: { success: false, message: 'Display busy' } });
    expect((await rejection(() => client.display({ text: 'x' }), ServiceFailureError)).message).toContain('POST /display failed: Display busy');
    emu.override = () => ({ status: 200, json: { success: true, message: 'Display started successfully' } });
    expect((await rejection(() => client.display({ text: 'x' }), ServiceProtocolError)).message).toContain('expected a "displayId" string');
    emu.override = () => ({ status: 200, json: { displayId: 'display_1' } });
    expect((await rejection(() => client.display({ text: 'x' }), ServiceProtocolError)).message).toContain('expected "success": true, got no "success"');
    emu.override = () => ({ status: 200, text: 'OK' });
    await rejection(() => client.display({ text: 'x' }), ServiceProtocolError);
    emu.override = undefined;
    emu.hold = true;
    const quick = new DeviceClient({ url: emu.url, timeouts: { display: 100 } });
    const late = await rejection(() => quick.display({ text: 'x' }), ServiceTimeoutError);
    expect(late.timeoutMs).toBe(100);
    expect(late.message).toContain("it may already have taken effect; the text may already be on the phone's screen");
  });
});

describe('location (GET /location)', () => {
  it('B-24 the current build: always 403 PERMISSION_DENIED, reported as a permission the app cannot have, not one to grant', async () => {
    const r = await raw(emu.url, '/location');
    expect([r.status, JSON.parse(r.body).code]).toEqual([403, 'PERMISSION_DENIED']);
    const err = await rejection(() => client.location(), ServiceHttpError);
    expect([err.status, err.errorCode]).toEqual([403, 'PERMISSION_DENIED']);
    expect(err.message).toContain('GET /location answered HTTP 403 PERMISSION_DENIED: Location permission not granted');
    expect(err.message).toContain('The current AI Phone Server build does not request one (its manifest leaves location access out), so there is none to grant');
    expect(err.message).not.toContain('grant it in the AI Phone Server app');
    // A reply, so not retried: the raw GET above and the client's one.
    expect(emu.requests).toHaveLength(2);
  });

  it('a build with the permission: 503 LOCATION_UNAVAILABLE without a fix, the fix once there is one', async () => {
    emu.locationPermission = true;
    const none = await rejection(() => client.location(), ServiceHttpError);
    expect([none.status, none.errorCode]).toEqual([503, 'LOCATION_UNAVAILABLE']);
    expect(none.message).toContain('(GPS location is not currently available) — the phone has no location fix at the moment (location turned off, or no GPS signal): try again later');
    emu.locationFix = { latitude: 48.7758, longitude: 9.1829, altitude: 245.5, accuracy: 12.5, time: 1_700_000_000_000, provider: 'fused' };
    expect(await client.location()).toEqual({ latitude: 48.7758, longitude: 9.1829, altitude: 245.5, accuracy: 12.5, timestamp: 1_700_000_000_000, provider: 'fused', backgroundAccess: false });
    // Gson leaves out a null provider: the key is absent, and that is fine.
    emu.locationFix = { latitude: -33.9, longitude: 151.2, altitude: 0, accuracy: 0, time: 1 };
    const fix = await client.location();
    expect('provider' in fix).toBe(false);
  });

  it('a position out of range or of the wrong type is a protocol error', async () => {
    const good = { latitude: 10, longitude: 20, altitude: 5, accuracy: 3, timestamp: 1_700_000_000_000, provider: 'gps', backgroundAccess: false };
    const bad: [Record<string, unknown>, string][] = [
      [{ ...good, latitude: 91 }, 'latitude a number of degrees from -90 to 90, got 91'],
      [{ ...good, longitude: '20' }, 'longitude a number of degrees from -180 to 180, got "20"'],
      [{ ...good, latitude: undefined }, 'latitude a number of degrees from -90 to 90, got nothing'],
      [{ ...good, accuracy: -1 }, 'accuracy a number of metres'],
      [{ ...good, timestamp: 'now' }, 'timestamp a number of epoch milliseconds'],
      [{ ...good, provider: 7 }, 'provider a string, got 7'],
      [{ ...good, backgroundAccess: 'no' }, 'backgroundAccess true or false, got "no"'],
    ];
    for (const [json, message] of bad) {
      emu.override = () => ({ status: 200, json });
      const err = await rejection(() => client.location(), ServiceProtocolError);
      expect(err.message, JSON.stringify(json)).toContain(`unexpected reply to GET /location (expected ${message}`);
    }
    emu.override = () => ({ status: 200, text: '<html>captive portal</html>' });
    expect((await rejection(() => client.location(), ServiceProtocolError)).message).toContain('answered something that is not a JSON object');
  });
});

describe('model diagnostics (GET /ai/models/diagnostics)', () => {
  it('the report is one multi-line text (Gson escapes its "=" on the wire) beside a summary; the client returns both', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    const r = await raw(emu.url, '/ai/models/diagnostics');
    expect(r.status).toBe(200);
    expect(r.body).toContain('\\u003d\\u003d\\u003d');
    const d = await client.diagnostics();
    expect(d.diagnostics.split('\n')[0]).toBe('🔍 AI Model Permission & Storage Diagnostics');
    expect(d.diagnostics).toContain('='.repeat(52));
    expect(d.summary).toEqual({ hasStoragePermissions: true, hasEnhancedStoragePermissions: true, availableModels: 1, totalModels: 5, androidVersion: 34 });
    emu.storagePermission = false;
    const denied = await client.diagnostics();
    expect(denied.summary.hasStoragePermissions).toBe(false);
    expect(denied.diagnostics).toContain('Write Test: ❌ FAILED');
  });

  it('a report that is not text, a missing summary, or 500 DIAGNOSTICS_ERROR are errors', async () => {
    emu.override = () => ({ status: 200, json: { timestamp: 1, diagnostics: { storagePermission: true }, summary: {} } });
    expect((await rejection(() => client.diagnostics(), ServiceProtocolError)).message).toContain(`expected "diagnostics" the app's report text, got an object`);
    emu.override = () => ({ status: 200, json: { timestamp: 1, diagnostics: 'ok' } });
    expect((await rejection(() => client.diagnostics(), ServiceProtocolError)).message).toContain('expected "summary" an object, got nothing (undefined)');
    emu.override = () => ({ status: 500, json: { error: 'Failed to generate diagnostics', code: 'DIAGNOSTICS_ERROR', details: 'disk I/O' } });
    const err = await rejection(() => client.diagnostics(), ServiceHttpError);
    expect(err.message).toContain('GET /ai/models/diagnostics answered HTTP 500 DIAGNOSTICS_ERROR: Failed to generate diagnostics (disk I/O)');
  });
});

describe('model deletion (DELETE /ai/models/{id})', () => {
  it('deleteModel() sends DELETE with the id (a display name given), unloads and removes the model', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    await client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT' });
    expect((await client.status()).ai?.currentModel).toBe('TinyLlama 1.1B Chat');
    const reply = await client.deleteModel('TinyLlama 1.1B Chat');
    expect(reply).toMatchObject({ success: true, modelName: 'TINYLLAMA_1_1B_CHAT' });
    const sent = emu.requests.at(-1)!;
    expect([sent.method, sent.path, sent.body]).toEqual(['DELETE', '/ai/models/TINYLLAMA_1_1B_CHAT', '']);
    expect(sent.headers.origin).toBeUndefined();
    expect(emu.downloaded.has('TINYLLAMA_1_1B_CHAT')).toBe(false);
    expect((await client.status()).ai?.currentModel).toBeUndefined();
    expect((await client.models()).find((m) => m.name === 'TINYLLAMA_1_1B_CHAT')?.available).toBe(false);
  });

  it('the app answers success for a model that was not on the phone; an unknown name is refused unsent', async () => {
    expect(await client.deleteModel('DEEPSEEK_R1_DISTILL_QWEN_1_5B')).toMatchObject({ success: true, modelName: 'DEEPSEEK_R1_DISTILL_QWEN_1_5B' });
    const sent = emu.requests.length;
    const err = await rejection(() => client.deleteModel('nope'), InvalidArgumentError);
    expect(err.message).toContain('unknown model "nope": use one of GEMMA_3_1B_IT (Gemma 3n E2B IT)');
    await rejection(() => client.deleteModel(undefined as never), InvalidArgumentError);
    expect(emu.requests.length).toBe(sent);
  });

  it('404 MODEL_NOT_FOUND, 500 REMOVAL_ERROR, success:false, another model echoed, and the CORS refusal are errors saying what happened', async () => {
    emu.override = () => ({ status: 404, json: { error: 'Model not found', code: 'MODEL_NOT_FOUND', details: "Model 'TINYLLAMA_1_1B_CHAT' is not supported" } });
    const notFound = await rejection(() => client.deleteModel('TINYLLAMA_1_1B_CHAT'), ServiceHttpError);
    expect([notFound.status, notFound.errorCode]).toEqual([404, 'MODEL_NOT_FOUND']);
    expect(notFound.message).toContain('DELETE /ai/models/TINYLLAMA_1_1B_CHAT answered HTTP 404 MODEL_NOT_FOUND');
    emu.override = () => ({ status: 500, json: { error: 'Failed to remove model', code: 'REMOVAL_ERROR', details: 'Model removal failed' } });
    expect((await rejection(() => client.deleteModel('TINYLLAMA_1_1B_CHAT'), ServiceHttpError)).errorCode).toBe('REMOVAL_ERROR');
    emu.override = () => ({ status: 200, json: { success: false, message: 'busy' } });
    await rejection(() => client.deleteModel('TINYLLAMA_1_1B_CHAT'), ServiceFailureError);
    emu.override = () => ({ status: 200, json: { success: true, message: 'Model removed successfully', modelName: 'GEMMA_3_1B_IT' } });
    const other = await rejection(() => client.deleteModel('TINYLLAMA_1_1B_CHAT'), ModelMismatchError);
    expect(other.message).toContain('asked for TINYLLAMA_1_1B_CHAT (TinyLlama 1.1B Chat) but GEMMA_3_1B_IT (Gemma 3n E2B IT) deleted');
    // The CORS plugin refuses a DELETE that carries an Origin with an empty 403: not a permission.
    emu.override = undefined;
    const cors = await raw(emu.url, '/ai/models/TINYLLAMA_1_1B_CHAT', { method: 'DELETE', headers: { origin: 'http://proxy.test' } });
    expect([cors.status, cors.body]).toEqual([403, '']);
    emu.override = () => ({ status: cors.status });
    const refused = await rejection(() => client.deleteModel('TINYLLAMA_1_1B_CHAT'), ServiceHttpError);
    expect([refused.status, refused.bodyText]).toEqual([403, '']);
    expect(refused.message).toContain("refused by the app's CORS check, not for a missing permission: the request carried an Origin header");
    expect(refused.message).not.toContain('grant it');
  });

  it('a deletion is sent once: a time-out says to check whether the model is still there', async () => {
    emu.hold = true;
    const quick = new DeviceClient({ url: emu.url, timeouts: { delete: 100 } });
    const err = await rejection(() => quick.deleteModel('TINYLLAMA_1_1B_CHAT'), ServiceTimeoutError);
    expect(err.message).toContain('check with heapql device models (models()) whether the model is still on the phone');
    expect(emu.requests.filter((r) => r.method === 'DELETE')).toHaveLength(1);
  });
});

describe('the four calls and a phone that is down', () => {
  it('each is a ServiceUnavailableError (refused) naming the app, after its tries', async () => {
    const gone = await DeviceEmulator.start();
    const url = gone.url;
    await gone.close();
    const c = new DeviceClient({ url });
    const calls: [string, () => Promise<unknown>][] = [
      ['POST /display', () => c.display({ text: 'x' })],
      ['GET /location', () => c.location()],
      ['GET /ai/models/diagnostics', () => c.diagnostics()],
      ['DELETE /ai/models/TINYLLAMA_1_1B_CHAT', () => c.deleteModel('TINYLLAMA_1_1B_CHAT')],
    ];
    for (const [request, call] of calls) {
      const err = await rejection(call, ServiceUnavailableError);
      expect([err.reason, err.request]).toEqual(['refused', request]);
      expect(err.message).toContain('is the AI Phone Server app running on the phone');
    }
  });

  it('their time limits: location, display, diagnostics 10 s, delete 30 s by default; each settable', () => {
    expect(client.timeouts).toMatchObject({ location: 10_000, display: 10_000, diagnostics: 10_000, delete: 30_000 });
    expect(new DeviceClient({ timeouts: { location: 1234 } }).timeouts.location).toBe(1234);
    expect(() => new DeviceClient({ timeouts: { delete: 0 } })).toThrow(new InvalidArgumentError('timeouts.delete must be a whole number of milliseconds from 1 to 2147483647 (the longest a timer waits), got 0'));
  });
});

describe('the rest of the API: capabilities, banner, model storage, cleanup, upload', () => {
  it('capabilities(): features follow the permissions; a reply without per-feature objects is a protocol error', async () => {
    const caps = await client.capabilities();
    expect(caps.port).toBe(8005);
    expect(caps.version).toBe('1.0.0-simplified');
    expect(caps.capabilities.location).toMatchObject({ available: false, endpoints: [] });
    expect(caps.capabilities.display).toMatchObject({ available: true, endpoints: ['/display'], methods: ['POST'] });
    emu.cameraPermission = false;
    expect((await client.capabilities()).capabilities.camera?.available).toBe(false);
    emu.override = () => ({ status: 200, json: { server: 'AI Phone Server', capabilities: { camera: 'yes' } } });
    expect((await rejection(() => client.capabilities(), ServiceProtocolError)).message).toContain('expected a "capabilities" object of {available, endpoints, …} per feature');
    // endpoints and methods lists of paths, description a text, as DeviceCapabilities says.
    for (const camera of [{ available: true, endpoints: '/capture' }, { available: true, methods: [1] }, { available: false, description: 5 }]) {
      emu.override = () => ({ status: 200, json: { capabilities: { camera } } });
      await rejection(() => client.capabilities(), ServiceProtocolError);
    }
  });

  it('banner(): GET / lists paths; a list of something else is a protocol error', async () => {
    const b = await client.banner();
    expect(emu.requests.at(-1)!.path).toBe('/');
    expect(b.available_endpoints).toContain('/display');
    expect(b.available_endpoints).toContain('/ai/models/{modelName}');
    emu.override = () => ({ status: 200, json: { available_endpoints: [1, 2] } });
    expect((await rejection(() => client.banner(), ServiceProtocolError)).message).toContain('unexpected reply to GET / (expected an "available_endpoints" list of paths)');
  });

  it('modelStorage(): the records of model files; cleanupModels(): drops those of deleted files and counts them', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    const storage = await client.modelStorage();
    expect(emu.requests.at(-1)!.path).toBe('/ai/models/status');
    expect(storage).toMatchObject({ totalModels: 5, downloadedModels: 1, modelsDirectory: '/storage/emulated/0/Download/local_ai_models' });
    expect(storage.availableModels).toHaveLength(1);
    emu.override = () => ({ status: 200, json: { totalModels: 5, availableModels: 'none' } });
    await rejection(() => client.modelStorage(), ServiceProtocolError);
    emu.override = () => ({ status: 500, json: { error: 'Failed to get status', code: 'STATUS_ERROR' } });
    expect((await rejection(() => client.modelStorage(), ServiceHttpError)).errorCode).toBe('STATUS_ERROR');
    emu.override = undefined;
    emu.staleRecords = 2;
    expect(await client.cleanupModels()).toEqual({ success: true, message: 'Cleanup completed', cleanedModels: 2 });
    expect([emu.requests.at(-1)!.method, emu.requests.at(-1)!.path]).toEqual(['POST', '/ai/models/cleanup']);
    expect((await client.cleanupModels()).cleanedModels).toBe(0);
    emu.override = () => ({ status: 200, json: { success: true, cleanedModels: -1 } });
    await rejection(() => client.cleanupModels(), ServiceProtocolError);
    emu.override = () => ({ status: 500, json: { error: 'Cleanup failed', code: 'CLEANUP_ERROR', details: 'io' } });
    expect((await rejection(() => client.cleanupModels(), ServiceHttpError)).errorCode).toBe('CLEANUP_ERROR');
  });

  it('uploadModel(): the phone fetches a URL into the model\'s own file name, a gated model too; there already, failed under 200, refused unsent', async () => {
    const url = 'https://mirror.example/models/llama-1b.task';
    const reply = await client.uploadModel({ model: 'Llama 3.2 1B Instruct', url });
    expect(reply).toMatchObject({ success: true, status: 'DOWNLOADED', model: { fileName: 'Llama-3.2-1B-Instruct_multi-prefill-seq_q8_ekv1280.task' } });
    expect(lastBody()).toEqual({ url, name: 'Llama 3.2 1B Instruct', fileName: 'Llama-3.2-1B-Instruct_multi-prefill-seq_q8_ekv1280.task' });
    expect(emu.downloaded.has('LLAMA_3_2_1B_INSTRUCT')).toBe(true);
    expect((await client.models()).find((m) => m.name === 'LLAMA_3_2_1B_INSTRUCT')?.available).toBe(true);
    // A file of that name is there: not fetched again.
    expect((await client.uploadModel({ model: 'LLAMA_3_2_1B_INSTRUCT', url })).status).toBe('ALREADY_EXISTS');
    expect(emu.uploads).toEqual([url]);
    emu.downloadOutcome = 'network-failure';
    const failed = await rejection(() => client.uploadModel({ model: 'TINYLLAMA_1_1B_CHAT', url }), ServiceFailureError);
    expect(failed.message).toContain('POST /ai/text/upload-model-api failed: Download failed: connection reset by peer');
    expect(failed.body.status).toBe('ERROR');
    const sent = emu.requests.length;
    for (const [request, message] of [
      [{ model: 'TINYLLAMA_1_1B_CHAT', url: 'file:///sdcard/x.task' }, 'the model file URL file:///sdcard/x.task must start with http:// or https://'],
      [{ model: 'TINYLLAMA_1_1B_CHAT', url: 'mirror/x.task' }, 'the model file URL "mirror/x.task" is not a URL'],
      [{ model: 'nope', url }, 'unknown model "nope"'],
      [{ model: 'TINYLLAMA_1_1B_CHAT', url, fileName: 'x.task' }, 'an upload request has no field "fileName": use model, url'],
    ] as const) {
      expect((await rejection(() => client.uploadModel(request as never), InvalidArgumentError)).message).toContain(message);
    }
    expect(emu.requests.length).toBe(sent);
    // On the wire: a missing field is 400 INVALID_REQUEST with the list of required ones.
    const bad = await post('/ai/text/upload-model-api', { url });
    expect([bad.status, JSON.parse(bad.body).required]).toEqual([400, ['url', 'name', 'fileName']]);
    emu.override = () => ({ status: 200, json: { success: true, status: 'QUEUED' } });
    await rejection(() => client.uploadModel({ model: 'TINYLLAMA_1_1B_CHAT', url }), ServiceProtocolError);
    emu.override = () => ({ status: 200, json: { success: true, status: 'DOWNLOADED', model: { fileName: 'other.task' } } });
    await rejection(() => client.uploadModel({ model: 'TINYLLAMA_1_1B_CHAT', url }), ServiceProtocolError);
  });

  it('the five are unavailable, not raw errors, when the phone is down', async () => {
    const gone = await DeviceEmulator.start();
    const url = gone.url;
    await gone.close();
    const c = new DeviceClient({ url });
    for (const call of [() => c.capabilities(), () => c.banner(), () => c.modelStorage(), () => c.cleanupModels(), () => c.uploadModel({ model: 'TINYLLAMA_1_1B_CHAT', url: 'https://mirror.example/t.task' })]) {
      expect((await rejection(call, ServiceUnavailableError)).reason).toBe('refused');
    }
  });
});

describe('sampling (temperature, topK, topP) on /ai/text', () => {
  it('the app echoes them in metadata even on a text-only generation, which ignores them; the client sends them only with an image to the vision model', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    emu.downloaded.add('GEMMA_3_1B_IT');
    const wire = JSON.parse((await post('/ai/text', { text: 'hi', model: 'TINYLLAMA_1_1B_CHAT', temperature: 0.1 })).body);
    expect([wire.metadata.temperature, wire.metadata.isMultimodal]).toEqual([0.1, false]);
    const err = await rejection(() => client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT', temperature: 0.1, topK: 5 }), InvalidArgumentError);
    expect(err.message).toBe(
      "temperature, topK take effect only on the app's multimodal path (GEMMA_3_1B_IT with an image or captureConfig); the app ignores them on a text-only generation (while echoing them in its metadata), so they are not sent",
    );
    await rejection(() => client.text({ text: 'hi', model: 'GEMMA_3_1B_IT', topP: 0.5 }), InvalidArgumentError);
    const sent = emu.requests.length;
    await rejection(() => client.text({ text: 'hi', model: 'GEMMA_3_1B_IT', captureConfig: {}, topP: 1.5 }), InvalidArgumentError);
    await rejection(() => client.text({ text: 'hi', model: 'GEMMA_3_1B_IT', captureConfig: {}, topK: 2 ** 31 }), InvalidArgumentError);
    await rejection(() => client.text({ text: 'hi', model: 'GEMMA_3_1B_IT', captureConfig: {}, temperature: -1 }), InvalidArgumentError);
    expect(emu.requests.length).toBe(sent);
    const reply = await client.text({ text: 'look', model: 'GEMMA_3_1B_IT', captureConfig: { camera: 'rear' }, temperature: 0.2, topK: 8, topP: 0.9 });
    expect(lastBody()).toEqual({ text: 'look', model: 'GEMMA_3_1B_IT', temperature: 0.2, topK: 8, topP: 0.9, captureConfig: { camera: 'rear' } });
    expect(reply.metadata).toMatchObject({ temperature: 0.2, topK: 8, topP: 0.9, isMultimodal: true });
  });

  it('an empty or blank prompt is refused before anything is sent, saying which and what to do', async () => {
    const sent = emu.requests.length;
    const empty = await rejection(() => client.text({ text: '', model: 'TINYLLAMA_1_1B_CHAT' }), InvalidArgumentError);
    expect(empty.message).toBe('the prompt text is empty: give the model something to answer');
    const blank = await rejection(() => client.text({ text: ' \n\t', model: 'TINYLLAMA_1_1B_CHAT' }), InvalidArgumentError);
    expect(blank.message).toBe('the prompt text is only white space: give the model something to answer');
    expect(emu.requests.length).toBe(sent);
  });
});
