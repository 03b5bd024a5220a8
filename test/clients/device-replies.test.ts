/**
 * DeviceClient against replies that are wrong in ways a type check alone misses (another model
 * answering, values out of range, a body without `success`, a non-image capture), arguments of
 * the wrong type from JavaScript callers, AbortSignals, and the wording of its HTTP errors.
 * Real HTTP on loopback: the device emulator, its `override` for odd replies.
 */
import { describe, expect, it } from 'vitest';

import {
  DeviceClient,
  InvalidArgumentError,
  ModelMismatchError,
  ServiceAbortedError,
  ServiceFailureError,
  ServiceHttpError,
  ServiceProtocolError,
  ServiceTimeoutError,
} from '../../ts/clients/device/index.js';
import { SchedulerEmulator } from './scheduler-emulator.js';
import { DeviceEmulator, frameBytes } from './device-emulator.js';
import { raw } from './raw-http.js';
import { emulatedDevice } from './emulated.js';
import { rejection, requestsReceived } from './expect-errors.js';

let emu: DeviceEmulator;
let client: DeviceClient;
emulatedDevice((e, c) => {
  emu = e;
  client = c;
});



const box = { left: 0.1, top: 0.2, right: 0.3, bottom: 0.4, width: 0.2, height: 0.2 };
const jpeg = (bytes: Buffer = frameBytes('rear')) => `data:image/jpeg;base64,${bytes.toString('base64')}`;

describe('device replies the client must not pass on', () => {
  it('S1 text answered by another model (an app that does not know the id falls back to Gemma) is a ModelMismatchError', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    emu.downloaded.add('GEMMA_3_1B_IT');
    emu.unknownToApp.add('TINYLLAMA_1_1B_CHAT');
    // On the wire: the emulated app quietly answers with its default model.
    const wire = JSON.parse((await raw(emu.url, '/ai/text', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT' }) })).body);
    expect(wire.model).toBe('GEMMA_3_1B_IT');
    const err = await rejection(() => client.text({ text: 'hi', model: 'TinyLlama 1.1B Chat' }), ModelMismatchError);
    expect(err).toBeInstanceOf(ServiceProtocolError);
    expect([err.requested, err.answered]).toEqual(['TINYLLAMA_1_1B_CHAT', 'GEMMA_3_1B_IT']);
    expect(err.message).toContain('asked for TINYLLAMA_1_1B_CHAT (TinyLlama 1.1B Chat) but GEMMA_3_1B_IT (Gemma 3n E2B IT) answered');
    expect(err.message).toMatch(/update the AI Phone Server app/);
    expect(err.exitCode).toBe(1);
    // The model asked for answering is fine.
    emu.unknownToApp.clear();
    expect((await client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT' })).model).toBe('TINYLLAMA_1_1B_CHAT');
  });

  it('a generation\'s thinking and license must be texts and its metadata an object, as TextReply says (an upload\'s model and a detection\'s imageMetadata objects)', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    const answer = { response: 'hi', model: 'TINYLLAMA_1_1B_CHAT' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...answer, thinking: ['a'] }, '(expected "thinking" a text, got an array)'],
      [{ ...answer, license: 5 }, '(expected "license" a text, got the number 5)'],
      [{ ...answer, metadata: 'CPU' }, '(expected "metadata" an object, got a string ("CPU"))'],
    ];
    for (const [json, expected] of cases) {
      emu.override = (req) => (req.path === '/ai/text' ? { status: 200, json } : undefined);
      expect((await rejection(() => client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT' }), ServiceProtocolError)).message).toContain(expected);
    }
    emu.override = undefined;
    expect((await client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT' })).metadata?.model).toBe('TinyLlama 1.1B Chat');
    // Likewise an upload's echoed model and a detection's imageMetadata.
    emu.override = (req) => (req.path === '/ai/text/upload-model-api' ? { status: 200, json: { success: true, status: 'DOWNLOADED', model: 'TinyLlama' } } : undefined);
    expect((await rejection(() => client.uploadModel({ model: 'TINYLLAMA_1_1B_CHAT', url: 'https://mirror.example/t.task' }), ServiceProtocolError)).message).toContain('(expected "model" an object {name, fileName, url, …}, got a string ("TinyLlama"))');
    emu.override = (req) => (req.path === '/ai/object_detection' ? { status: 200, json: { success: true, threshold: 0.5, objects: [], imageMetadata: [640, 480] } } : undefined);
    expect((await rejection(() => client.detectObjects(), ServiceProtocolError)).message).toContain('(expected "imageMetadata" an object, got an array)');
  });

  it('S2 orientation out of range or of the wrong type is a protocol error', async () => {
    const good = { azimuth: 10, pitch: -5, roll: 3, timestamp: 1_700_000_000_000, accuracy: 'LOW' };
    const bad: Record<string, unknown>[] = [
      { ...good, azimuth: 361 },
      { ...good, azimuth: -0.5 },
      { ...good, pitch: 200 },
      { ...good, roll: -181 },
      { ...good, timestamp: 'yesterday' },
      { ...good, accuracy: 3 },
      { ...good, accuracy: 'GREAT' },
    ];
    for (const json of bad) {
      emu.override = () => ({ status: 200, json });
      const err = await rejection(() => client.orientation(), ServiceProtocolError);
      expect(err.message).toMatch(/unexpected reply to GET \/orientation \(expected (azimuth|pitch|roll|timestamp|accuracy) /);
    }
    emu.override = () => ({ status: 200, json: good });
    expect(await client.orientation()).toMatchObject(good);
  });

  it('D7 before the sensors report, the emulator answers zeros and UNKNOWN, which the client passes on as such', async () => {
    emu.sensorsReady = false;
    const o = await client.orientation();
    expect([o.azimuth, o.pitch, o.roll, o.accuracy]).toEqual([0, 0, 0, 'UNKNOWN']);
  });

  it('S3 detection: junk objects, out-of-range boxes and scores are protocol errors', async () => {
    const good = { category: 'cup', score: 0.7, boundingBox: box, categoryIndex: 46 };
    const bad: unknown[] = [
      'junk',
      null,
      { ...good, boundingBox: { left: 12, top: 40, right: 300, bottom: 200, width: 288, height: 160 } },
      { ...good, score: 7.2 },
      { ...good, category: 5 },
      { ...good, boundingBox: undefined },
      { ...good, boundingBox: { ...box, left: 0.5, right: 0.2 } },
    ];
    for (const o of bad) {
      emu.override = () => ({ status: 200, json: { success: true, objects: [good, o], threshold: 0.5 } });
      const err = await rejection(() => client.detectObjects(), ServiceProtocolError);
      expect(err.message).toContain('object 2 ');
    }
    emu.override = () => ({ status: 200, json: { success: true, objects: [good], threshold: 0.5 } });
    expect((await client.detectObjects()).objects).toEqual([good]);
  });

  it('a box reaching past the frame\'s edge (the app does not clip MediaPipe\'s boxes) is passed on; one more than a frame beyond is not', async () => {
    // The emulator's chair (score 0.31) sits at the frame's left and bottom edges.
    const { objects } = await client.detectObjects({ threshold: 0.3 });
    expect(objects.map((o) => o.category)).toEqual(['person', 'cup', 'laptop', 'chair']);
    expect(objects[3]!.boundingBox).toMatchObject({ left: -0.012, bottom: 1.008 });
    const good = { category: 'cup', score: 0.7, boundingBox: box, categoryIndex: 46 };
    for (const boundingBox of [{ ...box, left: -1.2 }, { ...box, bottom: 2.5 }, { ...box, width: -0.1 }]) {
      emu.override = () => ({ status: 200, json: { success: true, objects: [good, { ...good, boundingBox }], threshold: 0.5 } });
      const err = await rejection(() => client.detectObjects(), ServiceProtocolError);
      expect(err.message).toContain('object 2 has boundingBox.');
    }
  });

  it('S3 detection: a body without success:true is not a success; one with an error is a ServiceFailureError', async () => {
    emu.override = () => ({ status: 200, json: { objects: [] } });
    expect((await rejection(() => client.detectObjects(), ServiceProtocolError)).message).toContain('"success": true');
    emu.override = () => ({ status: 200, json: { success: 'true', objects: [] } });
    await rejection(() => client.detectObjects(), ServiceProtocolError);
    emu.override = () => ({ status: 200, json: { success: 'false', objects: [], error: 'Camera busy' } });
    const err = await rejection(() => client.detectObjects(), ServiceFailureError);
    expect(err.message).toContain('failed: Camera busy');
  });

  it('S3 detection with returnImage: the frame must be a JPEG data URI', async () => {
    emu.override = () => ({ status: 200, json: { success: true, objects: [], image: 'data:text/html;base64,PGI+aGk8L2I+' } });
    expect((await rejection(() => client.detectObjects({ returnImage: true }), ServiceProtocolError)).message).toContain('not an image');
  });

  it('S4 download: an unknown status or another model is an error; auth_required means gated', async () => {
    const reply = (over: Record<string, unknown>) => ({ success: true, message: 'm', modelName: 'TinyLlama 1.1B Chat', status: 'download_started', ...over });
    emu.override = () => ({ status: 200, json: reply({ status: 'queued' }) });
    expect((await rejection(() => client.downloadModel('TINYLLAMA_1_1B_CHAT'), ServiceProtocolError)).message).toContain('already_available or download_started');
    emu.override = () => ({ status: 200, json: reply({ modelName: 'Gemma 3n E2B IT' }) });
    const mismatch = await rejection(() => client.downloadModel('TINYLLAMA_1_1B_CHAT'), ModelMismatchError);
    expect([mismatch.requested, mismatch.answered]).toEqual(['TINYLLAMA_1_1B_CHAT', 'Gemma 3n E2B IT']);
    emu.override = () => ({ status: 200, json: reply({ success: true, status: 'download_failed' }) });
    await rejection(() => client.downloadModel('TINYLLAMA_1_1B_CHAT'), ServiceProtocolError);
    // The form the app's /help documents for a gated model.
    emu.override = () => ({ status: 200, json: { success: false, status: 'auth_required', modelName: 'Llama 3.2 1B Instruct', message: 'Authentication required' } });
    const gated = await rejection(() => client.downloadModel('LLAMA_3_2_1B_INSTRUCT'), ServiceFailureError);
    expect(gated.body.status).toBe('auth_required');
    emu.override = () => ({ status: 200, json: { success: true, status: 'auth_required', modelName: 'Llama 3.2 1B Instruct' } });
    expect((await rejection(() => client.downloadModel('LLAMA_3_2_1B_INSTRUCT'), ServiceFailureError)).message).toMatch(/gated on Hugging Face.*install it on the phone through the AI Phone Server app/);
    emu.override = undefined;
    expect(await client.downloadModel('TINYLLAMA_1_1B_CHAT')).toMatchObject({ status: 'download_started', modelName: 'TinyLlama 1.1B Chat' });
  });

  it('S4/U1 the 400 AUTH_REQUIRED of a gated download says how to install it', async () => {
    const err = await rejection(() => client.downloadModel('GEMMA_3_1B_IT'), ServiceHttpError);
    expect(err.errorCode).toBe('AUTH_REQUIRED');
    expect(err.message).toContain('install it on the phone through the AI Phone Server app');
    expect(err.message).toContain('only DEEPSEEK_R1_DISTILL_QWEN_1_5B and TINYLLAMA_1_1B_CHAT download through the API');
  });

  it('S5 capture: a non-image type, a JPEG without its marker, or metadata that is not an object is a protocol error', async () => {
    emu.override = () => ({ status: 200, json: { success: true, image: 'data:text/html;base64,PGI+aGk8L2I+', metadata: {} } });
    expect((await rejection(() => client.capture(), ServiceProtocolError)).message).toContain('its type is text/html, not an image');
    emu.override = () => ({ status: 200, json: { success: true, image: jpeg(Buffer.from('plain text')), metadata: {} } });
    expect((await rejection(() => client.capture(), ServiceProtocolError)).message).toContain('FF D8 FF');
    emu.override = () => ({ status: 200, json: { success: true, image: jpeg(), metadata: 'none' } });
    expect((await rejection(() => client.capture(), ServiceProtocolError)).message).toContain('"metadata" an object');
    emu.override = () => ({ status: 200, json: { image: jpeg(), metadata: {} } });
    await rejection(() => client.capture(), ServiceProtocolError);
    emu.override = () => ({ status: 200, json: { success: true, image: jpeg() } });
    const shot = await client.capture();
    expect(shot.metadata).toEqual({});
    expect(Buffer.from(shot.image).equals(frameBytes('rear'))).toBe(true);
  });
});

describe('device arguments from JavaScript callers', () => {
  it('C2 wrong types are InvalidArgumentErrors naming the type, and nothing is sent', async () => {
    const cases: [() => Promise<unknown>, RegExp][] = [
      [() => client.text(undefined as never), /a text request is an object .*got nothing \(undefined\)/],
      [() => client.text(null as never), /got null/],
      [() => client.text({ text: 42, model: 'GEMMA_3_1B_IT' } as never), /prompt text must be a string, got the number 42/],
      [() => client.text({ text: 'hi', model: 7 } as never), /model name must be a string, got the number 7/],
      [() => client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT', maxTokens: '64' } as never), /maxTokens must be a positive whole number, got a string \("64"\)/],
      [() => client.text({ text: 'hi', model: 'GEMMA_3_1B_IT', image: 123 } as never), /image must be bytes/],
      [() => client.text({ text: 'hi', model: 'GEMMA_3_1B_IT', captureConfig: 'rear' } as never), /captureConfig must be an object/],
      [() => client.detectObjects(null as never), /detection request is an object/],
      [() => client.detectObjects({ threshold: '0.5' } as never), /threshold must be a number from 0 to 1, got a string \("0.5"\)/],
      [() => client.detectObjects({ maxResults: '5' } as never), /maxResults must be a positive whole number, got a string/],
      [() => client.detectObjects({ returnImage: 'yes' } as never), /returnImage must be true or false/],
      [() => client.detectObjects({ side: 1 } as never), /camera side must be the string rear or front, got the number 1/],
      [() => client.capture(null as never), /capture request is an object/],
      [() => client.capture({ zoom: '2' } as never), /zoom must be a positive number, got a string/],
      [() => client.downloadModel(5 as never), /model name must be a string, got the number 5/],
      [() => client.status({ signal: 'stop' } as never), /signal must be an AbortSignal, got a string/],
      [() => client.status(null as never), /options must be an object/],
    ];
    for (const [call, message] of cases) {
      const err = await rejection(call, InvalidArgumentError).catch((e: unknown) => {
        throw new Error(`case ${message}: ${(e as Error).message}`);
      });
      expect(err.message).toMatch(message);
      expect(err.exitCode).toBe(2);
    }
    expect(() => new DeviceClient(null as never)).toThrow(InvalidArgumentError);
    expect(() => new DeviceClient({ timeouts: { text: '600000' } } as never)).toThrow(/timeouts.text must be a number of milliseconds, got a string \("600000"\)/);
    // Past 2^31 - 1 ms a Node timer fires at once: refused, naming the option and the range.
    expect(() => new DeviceClient({ timeouts: { capture: 2 ** 31 } })).toThrow(
      new InvalidArgumentError('timeouts.capture must be a whole number of milliseconds from 1 to 2147483647 (the longest a timer waits), got 2147483648'),
    );
    expect(emu.requests).toEqual([]);
  });

  it('a misspelt option or request field is refused, naming the ones there are, instead of quietly using a default', async () => {
    const cases: [() => Promise<unknown>, string][] = [
      [() => client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT', maxTokns: 5 } as never), 'a text request has no field "maxTokns": use text, model, maxTokens, temperature, topK, topP, image, captureConfig, returnImage, imageScaling'],
      [() => client.detectObjects({ treshold: 0.9 } as never), 'a detection request has no field "treshold": use side, zoom, threshold, maxResults, returnImage, imageScaling'],
      [() => client.capture({ scaling: 'LARGE' } as never), 'a capture request has no field "scaling": use side, zoom, imageScaling'],
      [() => client.status({ signl: AbortSignal.timeout(5) } as never), 'options have no field "signl": use signal'],
      [() => client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT' }, { timeout: 5 } as never), 'options have no field "timeout": use signal'],
    ];
    for (const [call, message] of cases) {
      const err = await rejection(call, InvalidArgumentError);
      expect(err.message).toBe(message);
    }
    expect(() => new DeviceClient({ url: emu.url, timeout: 5 } as never)).toThrow(new InvalidArgumentError('DeviceClient options have no field "timeout": use url, timeouts'));
    expect(() => new DeviceClient({ url: emu.url, timeouts: { txt: 5 } } as never)).toThrow(
      new InvalidArgumentError('timeouts has no field "txt": use status, help, models, orientation, capture, detect, text, download, location, display, diagnostics, delete'),
    );
    // An undefined limit is no limit given: the default stays (as timeoutMs: undefined does for the scheduler).
    expect(new DeviceClient({ url: emu.url, timeouts: { text: undefined } }).timeouts.text).toBe(600_000);
    expect(emu.requests).toEqual([]);
  });
});

describe('device AbortSignal and time limits', () => {
  it('C1 an aborted call ends at once with ServiceAbortedError; an already aborted signal sends nothing', async () => {
    const before = AbortSignal.abort(new Error('user left'));
    const unsent = await rejection(() => client.status({ signal: before }), ServiceAbortedError);
    expect(unsent.sent).toBe(false);
    expect(unsent.cause).toBe(before.reason);
    expect(emu.requests).toEqual([]);

    emu.hold = true;
    // A time limit far beyond the test's: only the abort can end this call.
    const patient = new DeviceClient({ url: emu.url, timeouts: { capture: 3_600_000 } });
    const controller = new AbortController();
    const pending = patient.capture({}, { signal: controller.signal }).then(() => null, (e: unknown) => e);
    await requestsReceived(emu, 1);
    controller.abort();
    const err = (await pending) as ServiceAbortedError;
    expect(err).toBeInstanceOf(ServiceAbortedError);
    expect(err.sent).toBe(true);
    expect(err.message).toContain('GET /capture?side=rear was aborted by the caller after it was sent');
  });

  it('C1 a queued generation aborted while it waits is never sent, and the queue goes on', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    const release: (() => void)[] = [];
    emu.textGate = () => new Promise<void>((r) => release.push(r));
    const first = client.text({ text: 'one', model: 'TINYLLAMA_1_1B_CHAT' });
    await requestsReceived(emu, 1);
    const controller = new AbortController();
    const second = client.text({ text: 'two', model: 'TINYLLAMA_1_1B_CHAT' }, { signal: controller.signal }).then(() => null, (e: unknown) => e);
    const third = client.text({ text: 'three', model: 'TINYLLAMA_1_1B_CHAT' });
    controller.abort();
    const err = (await second) as ServiceAbortedError;
    expect(err).toBeInstanceOf(ServiceAbortedError);
    expect(err.sent).toBe(false);
    expect(err.message).toMatch(/while it waited \d+ ms behind earlier generations; nothing was sent/);
    for (let i = 0; i < 2000 && release.length < 1; i++) await new Promise((r) => setTimeout(r, 5));
    release.shift()!();
    expect((await first).response).toBe('You said: one');
    for (let i = 0; i < 2000 && release.length < 1; i++) await new Promise((r) => setTimeout(r, 5));
    release.shift()!();
    expect((await third).response).toBe('You said: three');
    expect(emu.requests.map((r) => JSON.parse(r.body).text)).toEqual(['one', 'three']);
  });

  it('C1 a queued generation\'s time limit counts from its sending, and its message says how long it waited first', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    const release: (() => void)[] = [];
    emu.textGate = () => new Promise<void>((r) => release.push(r));
    const slow = new DeviceClient({ url: emu.url, timeouts: { text: 200 } });
    try {
      const first = slow.text({ text: 'one', model: 'TINYLLAMA_1_1B_CHAT' }).then(() => null, (e: unknown) => e);
      const second = slow.text({ text: 'two', model: 'TINYLLAMA_1_1B_CHAT' }).then(() => null, (e: unknown) => e);
      const a = (await first) as ServiceTimeoutError;
      expect(a).toBeInstanceOf(ServiceTimeoutError);
      expect(a.message).toContain('no reply to POST /ai/text within 200 ms of sending it; it may already have taken effect');
      const b = (await second) as ServiceTimeoutError;
      expect(b).toBeInstanceOf(ServiceTimeoutError);
      expect(b.message).toMatch(/within 200 ms of sending it \(it had first waited \d+ ms behind earlier calls of this client\)/);
      // Both were sent: the second got its full time at the server.
      expect(emu.requests.map((r) => JSON.parse(r.body).text)).toEqual(['one', 'two']);
    } finally {
      for (const r of release) r();
    }
  });
});

describe('device HTTP error wording', () => {
  it('U1 MODEL_NOT_AVAILABLE offers a download only for a model the API can download', async () => {
    const open = await rejection(() => client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT' }), ServiceHttpError);
    expect(open.message).toContain('download it first (heapql device download TINYLLAMA_1_1B_CHAT, or downloadModel())');
    const gated = await rejection(() => client.text({ text: 'hi', model: 'LLAMA_3_2_3B_INSTRUCT' }), ServiceHttpError);
    expect(gated.errorCode).toBe('MODEL_NOT_AVAILABLE');
    expect(gated.message).not.toContain('download it first');
    expect(gated.message).toContain('LLAMA_3_2_3B_INSTRUCT is gated on Hugging Face, so the API cannot download it: install it on the phone through the AI Phone Server app');
  });

  it('a model that does not load: 400 AI_SERVICE_ERROR with a multi-line message, said on one line; the model no longer counts as available', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    emu.failsToLoad.add('TINYLLAMA_1_1B_CHAT');
    const err = await rejection(() => client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT' }), ServiceHttpError);
    expect([err.status, err.errorCode]).toEqual([400, 'AI_SERVICE_ERROR']);
    expect(err.message).not.toContain('\n');
    expect(err.message).toContain(
      'answered HTTP 400 AI_SERVICE_ERROR: AI service error (Failed to load model TinyLlama 1.1B Chat java.lang.IllegalStateException: Failed to initialize engine: TinyLlama-1.1B-Chat-v1.0_multi-prefill-seq_q8_ekv1024.task at com.google',
    );
    expect((await client.models()).find((m) => m.name === 'TINYLLAMA_1_1B_CHAT')!.available).toBe(false);
    expect((await client.status()).ai).toMatchObject({ isEnabled: false, downloadedModels: 0 });
  });

  it('U2 an empty 404/405 may also mean the URL is not the AI Phone Server', async () => {
    const err = await rejection(() => new DeviceClient({ url: `${emu.url}/v0` }).models(), ServiceHttpError);
    expect(err.message).toContain('this app version has no such endpoint, or the URL is not the AI Phone Server');
  });

  it('a URL with a path: errors name the request as sent, path included', async () => {
    const prefixed = new DeviceClient({ url: `${emu.url}/v0/` });
    const missing = await rejection(() => prefixed.status(), ServiceHttpError);
    expect(missing.request).toBe('GET /v0/status');
    expect(missing.message).toContain('GET /v0/status answered HTTP 404');
    emu.override = () => ({ status: 200, json: { azimuth: 400, pitch: 0, roll: 0 } });
    const odd = await rejection(() => prefixed.orientation(), ServiceProtocolError);
    expect(odd.request).toBe('GET /v0/orientation');
    expect(odd.message).toContain('unexpected reply to GET /v0/orientation');
    emu.override = () => ({ status: 200, json: { success: false, error: 'busy' } });
    const failed = await rejection(() => prefixed.detectObjects(), ServiceFailureError);
    expect(failed.request).toBe('POST /v0/ai/object_detection');
    expect(failed.message).toContain('POST /v0/ai/object_detection failed: busy');
  });

  it('a JSON error body without error or message is shown as it came (another service answering, say)', async () => {
    emu.override = () => ({ status: 404, json: { title: 'Endpoint GET /status not found', status: 404, details: {} } });
    const err = await rejection(() => client.status(), ServiceHttpError);
    expect(err.message).toContain('GET /status answered HTTP 404: { "title": "Endpoint GET /status not found", "status": 404, "details": {} }');
    // A 404 or 405 without the app's error code is not the app's answer either.
    expect(err.message).toContain(' — this app version has no such endpoint, or the URL is not the AI Phone Server');
    emu.override = () => ({ status: 405, text: 'Method Not Allowed' });
    const method = await rejection(() => client.status(), ServiceHttpError);
    expect(method.message).toContain('answered HTTP 405: Method Not Allowed — this app version has no such endpoint, or the URL is not the AI Phone Server');
    // The app's own 404 with a code gets its own advice instead.
    emu.override = () => ({ status: 404, json: { error: 'AI model not available', code: 'MODEL_NOT_AVAILABLE', details: 'TinyLlama 1.1B Chat is not on the device' } });
    const model = await rejection(() => client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT' }), ServiceHttpError);
    expect(model.message).not.toContain('no such endpoint');
    expect(model.message).toContain('download it first');
  });

  it('a reply nested too deep to re-encode (JSON.parse reads it, JSON.stringify overflows) is a protocol error with the text as sent, not a RangeError', async () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    emu.override = (req) => (req.path === '/status' ? { status: 200, text: `{\n  "status": 1,\n  "x": ${deep}\n}` } : req.path === '/ai/models' ? { status: 200, text: `{"models": [${deep}]}` } : undefined);
    const status = await rejection(() => client.status(), ServiceProtocolError);
    expect(status.message).toMatch(/^device service at http:\/\/127\.0\.0\.1:\d+: unexpected reply to GET \/status \(expected a "status" string\): \{ "status": 1, "x": \[\[\[/);
    expect(status.message).not.toContain('\n');
    expect(status.bodyText.startsWith('{\n  "status": 1,')).toBe(true);
    const models = await rejection(() => client.models(), ServiceProtocolError);
    expect(models.bodyText).toBe(`{"models": [${deep}]}`);
    // A field quoted in the message is named by what it is when it cannot be quoted.
    emu.override = (req) => (req.path === '/orientation' ? { status: 200, text: `{"azimuth": ${deep}, "pitch": 0, "roll": 0}` } : undefined);
    expect((await rejection(() => client.orientation(), ServiceProtocolError)).message).toContain('(expected azimuth a number of degrees from 0 to 360, got an array)');
    emu.override = (req) => (req.path === '/ai/object_detection' ? { status: 200, text: `{"success": true, "threshold": 0.5, "objects": [{"category": ${deep}}]}` } : undefined);
    expect((await rejection(() => client.detectObjects(), ServiceProtocolError)).message).toContain('object 1 has category an array');
    emu.override = (req) => (req.path.startsWith('/ai/models/') ? { status: 200, text: `{"success": true, "modelName": ${deep}}` } : undefined);
    expect((await rejection(() => client.deleteModel('TINYLLAMA_1_1B_CHAT'), ModelMismatchError)).answered).toBe('an array');
  });

  it('the scheduler answering where the device service was expected: its 404 says the URL is not the AI Phone Server', async () => {
    const sched = await SchedulerEmulator.start();
    try {
      const err = await rejection(() => new DeviceClient({ url: sched.url }).status(), ServiceHttpError);
      expect(err.message).toMatch(/answered HTTP 404: \{"title":"Endpoint GET \/status not found".* — this app version has no such endpoint, or the URL is not the AI Phone Server$/);
    } finally {
      await sched.close();
    }
  });

  it('U6 a redirect names its Location', async () => {
    emu.override = () => ({ status: 302, headers: { location: 'http://192.0.2.1/login' }, text: '' });
    const err = await rejection(() => client.status(), ServiceHttpError);
    expect(err.status).toBe(302);
    expect(err.message).toContain('a redirect to http://192.0.2.1/login, not followed');
  });
});

describe("numbers the app's JSON parser (Gson) refuses", () => {
  const body = () => JSON.parse(emu.requests.at(-1)!.body) as Record<string, unknown>;

  it('the emulator: a whole-number field beyond 32 bits fails /ai/text (500 AI_ERROR) and makes detection ignore its whole body', async () => {
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    const text = await raw(emu.url, '/ai/text', { method: 'POST', body: JSON.stringify({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT', maxTokens: 2 ** 31 }) });
    expect([text.status, JSON.parse(text.body).code]).toEqual([500, 'AI_ERROR']);
    const json = { 'content-type': 'application/json' };
    const detect = await raw(emu.url, '/ai/object_detection', { method: 'POST', headers: json, body: JSON.stringify({ threshold: 0.9, maxResults: 2 ** 31, returnImage: true }) });
    const reply = JSON.parse(detect.body);
    expect([reply.success, reply.threshold, 'image' in reply, reply.objects.length]).toEqual([true, 0.5, false, 3]);
  });

  it('maxTokens and maxResults beyond 32 bits are refused unsent', async () => {
    const tokens = await rejection(() => client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT', maxTokens: 2 ** 31 }), InvalidArgumentError);
    expect(tokens.message).toBe('maxTokens 2147483648 is invalid: use a whole number from 1 to 2147483647');
    const results = await rejection(() => client.detectObjects({ threshold: 0.9, maxResults: 2 ** 31 }), InvalidArgumentError);
    expect(results.message).toBe('maxResults 2147483648 is invalid: use a whole number from 1 to 2147483647');
    expect(emu.requests).toEqual([]);
    emu.downloaded.add('TINYLLAMA_1_1B_CHAT');
    await client.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT', maxTokens: 2 ** 31 - 1 });
    expect(body().maxTokens).toBe(2 ** 31 - 1);
  });

  it('a detection reply with another threshold than the one sent means the app ignored the request: a protocol error', async () => {
    emu.override = () => ({ status: 200, json: { success: true, objects: [], threshold: 0.5 } });
    const err = await rejection(() => client.detectObjects({ threshold: 0.9 }), ServiceProtocolError);
    expect(err.message).toContain('threshold 0.9 as sent; the app answered for threshold 0.5, so it ignored the request (its side, maxResults and returnImage too)');
    // Sent as a 32-bit float by the app: 0.6 may come back as 0.6000000238418579.
    emu.override = () => ({ status: 200, json: { success: true, objects: [], threshold: Math.fround(0.6) } });
    expect((await client.detectObjects({ threshold: 0.6 })).threshold).toBeCloseTo(0.6, 6);
  });

  it('captureConfig: quality, maxWidth and maxHeight are checked, and a field it does not have is refused', async () => {
    emu.downloaded.add('GEMMA_3_1B_IT');
    const cases: [unknown, string][] = [
      [{ quality: 'high' }, 'captureConfig.quality must be a whole number from 1 to 100, got a string ("high")'],
      [{ quality: 101 }, 'captureConfig.quality must be a whole number from 1 to 100, got the number 101'],
      [{ maxWidth: 0 }, 'captureConfig.maxWidth must be a whole number from 1 to 2147483647, got the number 0'],
      [{ maxHeight: 1.5 }, 'captureConfig.maxHeight must be a whole number from 1 to 2147483647, got the number 1.5'],
    ];
    for (const [captureConfig, message] of cases) {
      const err = await rejection(() => client.text({ text: 'look', model: 'GEMMA_3_1B_IT', captureConfig: captureConfig as never }), InvalidArgumentError);
      expect(err.message).toBe(message);
    }
    // A misspelt field would leave its default in force unseen: the rear camera instead of the front one.
    const misspelt = await rejection(() => client.text({ text: 'look', model: 'GEMMA_3_1B_IT', captureConfig: { camra: 'front' } as never }), InvalidArgumentError);
    expect(misspelt.message).toBe('captureConfig has no field "camra": use camera, quality, maxWidth, maxHeight');
    expect(emu.requests).toEqual([]);
    await client.text({ text: 'look', model: 'GEMMA_3_1B_IT', captureConfig: { camera: 'front', quality: 80, maxWidth: 640 } });
    expect(body().captureConfig).toEqual({ camera: 'front', quality: 80, maxWidth: 640 });
  });
});
