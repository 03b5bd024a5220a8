/**
 * `heapql device`: the AI Phone Server from the command line (status, models, text generation,
 * downloads, object detection, camera, compass). Bad arguments exit 2 before anything is sent;
 * a phone that is unreachable, an HTTP error or a `success: false` reply exits 1 with one line.
 * `--json` prints the server's JSON reply as it sent it.
 */
import { constants as fsConstants } from 'node:fs';
import { access, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { checkOptions } from './args.js';
import { print, serviceClient, timeoutOption } from './service-client.js';
import { defineCommand } from 'citty';

import { DeviceClient, decodeDataUri, replyText, COLOR_NAMES, colorFault, IMAGE_SCALINGS, imageTooLarge, MODELS, resolveModel, DEFAULT_DEVICE_TIMEOUTS, DEFAULT_DEVICE_URL, type CameraSide, type DeviceTimeouts, type ImageScaling } from '../clients/device/index.js';
import { HeapqlError, usageError } from '../errors.js';
import { cannotWrite, fileWriteProblem } from '../file-write-error.js';
import { notice } from './stderr.js';

const SCALING_NAMES = 'none, small, medium, large or ultra';
const SCALING_ARG = {
  type: 'string',
  valueHint: 'size',
  description: 'image size: small 512 px, medium 1024 px (default), large 2048 px, ultra 4096 px, none (as taken)',
} as const;

const common = {
  url: { type: 'string', valueHint: 'url', description: `device service URL (default: $HEAPQL_DEVICE_URL, else ${DEFAULT_DEVICE_URL})` },
  timeout: { type: 'string', valueHint: 'seconds', description: `time limit of each request in seconds (default: ${Object.entries(DEFAULT_DEVICE_TIMEOUTS).map(([k, ms]) => `${k} ${ms / 1000}`).join(', ')})` },
  json: { type: 'boolean', description: "print the server's JSON reply" },
} as const;

/**
 * A command that takes only the common options: asks the phone one thing (`ask`) and shows the
 * reply (`show`), or with `--json` prints it as sent (`fallback`, or the reply, re-encoded
 * where there is no such text).
 */
function askCommand<T>(name: string, description: string, ask: (c: DeviceClient) => Promise<T>, show: (reply: T) => void, fallback?: (reply: T) => unknown) {
  return defineCommand({
    meta: { name, description },
    args: common,
    async run({ args, rawArgs }) {
      checkOptions(rawArgs, `device ${name}`, common, 0);
      const reply = await ask(client(args));
      if (args.json) return printJson(reply, fallback ? fallback(reply) : reply);
      show(reply);
    },
  });
}

const statusCommand = askCommand(
  'status',
  'server, permissions and AI state: device status [--url <u>]',
  (c) => c.status(),
  (s) => {
    const ai = s.ai ?? {};
    const yes = (v: unknown) => (v ? 'yes' : 'no');
    print(
      [
        `${s.server ?? 'device service'} ${s.version ?? ''}`.trim() + `: ${s.status}`,
        `AI: ${ai.isEnabled ? 'enabled' : 'disabled'}, ${ai.downloadedModels ?? '?'} of ${ai.totalModels ?? '?'} models downloaded` +
          (ai.currentModel ? `, current model ${ai.currentModel}` : '') +
          (ai.isProcessing ? ', generating' : '') +
          (ai.isModelLoading ? ', loading a model' : ''),
        `permissions: ${Object.entries(s.permissions ?? {})
          .map(([k, v]) => `${k} ${yes(v)}`)
          .join(', ')}`,
      ].join('\n'),
    );
  },
);

const helpCommand = askCommand(
  'help',
  "the server's own endpoint list: device help [--url <u>]",
  (c) => c.help(),
  (h) => {
    const endpoints = Object.entries(h.endpoints ?? {});
    const width = Math.max(0, ...endpoints.map(([k]) => k.length));
    print([`${h.server ?? 'device service'} ${h.version ?? ''}`.trim(), ...endpoints.map(([k, v]) => `  ${k.padEnd(width)}  ${v?.description ?? ''}`)].join('\n'));
  },
);

const modelsCommand = askCommand(
  'models',
  'the five models and which are on the phone: device models [--url <u>]',
  (c) => c.models(),
  (models) => {
    const rows = models.map((m) => [
      m.name,
      m.displayName,
      m.available ? 'downloaded' : 'not downloaded',
      m.isMultiModal ? 'text+images' : 'text',
      m.currentlyLoaded ? 'loaded' : '',
    ]);
    print(table(rows));
  },
  (models) => ({ models }),
);

const orientationCommand = askCommand(
  'orientation',
  'compass azimuth, pitch and roll in degrees: device orientation [--url <u>]',
  (c) => c.orientation(),
  (o) => {
    print(`azimuth ${o.azimuth}°  pitch ${o.pitch}°  roll ${o.roll}°${o.accuracy ? `  accuracy ${o.accuracy}` : ''}`);
    // The app answers zeros and UNKNOWN until the phone's sensors have reported.
    if (o.accuracy === 'UNKNOWN' && o.azimuth === 0 && o.pitch === 0 && o.roll === 0) {
      notice("note: no sensor reading yet (all zeros, accuracy UNKNOWN): the phone's compass has not reported; try again in a moment");
    }
  },
);

const textArgs = {
  prompt: { type: 'positional', required: true, valueHint: 'prompt', description: 'the prompt' },
  model: { type: 'string', valueHint: 'id or name', description: `model id or display name (${MODELS.map((m) => m.id).join(', ')})` },
  'max-tokens': { type: 'string', valueHint: 'n', description: 'token limit (the current app ignores it)' },
  image: { type: 'string', valueHint: 'file', description: 'an image file to ask about (GEMMA_3_1B_IT only)' },
  capture: { type: 'string', valueHint: 'rear|front', description: "take a photo with the phone's camera instead (GEMMA_3_1B_IT only)" },
  'image-out': { type: 'string', valueHint: 'file', description: 'have the app take a rear-camera photo after generating and save it here (any model)' },
  scaling: SCALING_ARG,
  ...common,
} as const;

const textCommand = defineCommand({
  meta: {
    name: 'text',
    description:
      'generate text on the phone: device text <prompt> --model <id or name> [--max-tokens <n>] [--image <file>] [--capture rear|front] [--image-out <file> [--scaling <size>]] [--url <u>]',
  },
  args: textArgs,
  async run({ args, rawArgs }) {
    checkOptions(rawArgs, 'device text', textArgs, 1);
    if (args.model === undefined || args.model === '') throw usageError(`--model is required: one of ${MODELS.map((m) => m.id).join(', ')}`);
    resolveModel(args.model);
    const maxTokens = args['max-tokens'] === undefined ? undefined : positiveInt(args['max-tokens'], '--max-tokens');
    // In the options' own words (the client's error names its fields, image and captureConfig),
    // before the image file is read.
    if (args.image !== undefined && args.capture !== undefined) {
      throw usageError('--image and --capture do not go together: ask about an image file (--image <file>) or a photo the phone takes now (--capture rear|front)');
    }
    const image = args.image === undefined ? undefined : await readInput(args.image);
    const captureConfig = args.capture === undefined ? undefined : { camera: side(args.capture, '--capture') };
    const imageOut = args['image-out'];
    if (imageOut === '') throw usageError('--image-out needs a file name');
    if (args.scaling !== undefined && imageOut === undefined) throw usageError('--scaling needs --image-out: it sizes the photo taken after generating');
    const imageScaling = args.scaling === undefined ? undefined : scalingOf(args.scaling);
    if (imageOut !== undefined) await checkWritable(imageOut);
    const c = client(args);
    const returnImage = imageOut !== undefined;
    const reply = await c.text({ text: args.prompt, model: args.model, maxTokens, image, captureConfig, ...(returnImage ? { returnImage, imageScaling } : {}) });
    if (args.json) printJson(reply);
    else print(reply.response);
    if (imageOut === undefined) return;
    if (reply.image === undefined) {
      throw new HeapqlError(
        'ERR_SERVICE_FAILURE',
        `device service at ${new URL(c.url).origin}: POST /ai/text answered without the photo returnImage asked for: the app takes it with the rear camera after generating and leaves it out when it cannot (camera permission, app not in the foreground)`,
        { exitCode: 1 },
      );
    }
    const photo = decodeDataUri(reply.image)!;
    await writeOutput(imageOut, photo.bytes);
    notice(`wrote ${photo.bytes.length} bytes (${photo.mimeType}) to ${imageOut}`);
  },
});

const downloadArgs = {
  model: { type: 'positional', required: true, valueHint: 'model', description: 'model id or display name (DeepSeek and TinyLlama; the others are gated)' },
  ...common,
} as const;

const downloadCommand = defineCommand({
  meta: { name: 'download', description: 'download a model to the phone (waits until done): device download <model> [--url <u>]' },
  args: downloadArgs,
  async run({ args, rawArgs }) {
    checkOptions(rawArgs, 'device download', downloadArgs, 1);
    const reply = await client(args).downloadModel(args.model);
    if (args.json) return printJson(reply);
    const name = reply.modelName ?? resolveModel(args.model).displayName;
    print(reply.status === 'already_available' ? `${name} is already on the phone` : `downloaded ${name}${reply.message ? ` (${reply.message})` : ''}`);
  },
});

const detectArgs = {
  side: { type: 'string', valueHint: 'rear|front', description: 'camera (default rear)' },
  zoom: { type: 'string', valueHint: 'z', description: 'zoom factor' },
  threshold: { type: 'string', valueHint: 'x', description: 'minimum score, 0 to 1 (default 0.5)' },
  'max-results': { type: 'string', valueHint: 'n', description: 'at most this many objects (default 10)' },
  'image-out': { type: 'string', valueHint: 'file', description: 'also save the analysed frame (JPEG) here' },
  scaling: SCALING_ARG,
  ...common,
} as const;

const detectCommand = defineCommand({
  meta: {
    name: 'detect',
    description: 'detect objects in a camera frame (app in the foreground): device detect [--side rear|front] [--zoom <z>] [--threshold <x>] [--max-results <n>] [--image-out <file> [--scaling <size>]] [--url <u>]',
  },
  args: detectArgs,
  async run({ args, rawArgs }) {
    checkOptions(rawArgs, 'device detect', detectArgs, 0);
    const request = {
      side: args.side === undefined ? undefined : side(args.side, '--side'),
      zoom: args.zoom === undefined ? undefined : positiveNumber(args.zoom, '--zoom'),
      threshold: args.threshold === undefined ? undefined : fraction(args.threshold, '--threshold'),
      maxResults: args['max-results'] === undefined ? undefined : positiveInt(args['max-results'], '--max-results'),
      returnImage: args['image-out'] !== undefined,
      imageScaling: args.scaling === undefined ? undefined : scalingOf(args.scaling),
    };
    if (request.returnImage && args['image-out'] === '') throw usageError('--image-out needs a file name');
    if (args['image-out'] !== undefined) await checkWritable(args['image-out']);
    const reply = await client(args).detectObjects(request);
    if (args['image-out'] !== undefined) {
      const image = decodeDataUri(reply.image!)!;
      await writeOutput(args['image-out'], image.bytes);
      notice(`wrote ${image.bytes.length} bytes (${image.mimeType}) to ${args['image-out']}`);
    }
    if (args.json) return printJson(reply);
    if (reply.objects.length === 0) return print('no objects');
    print(
      table(
        reply.objects.map((o) => {
          const b = o.boundingBox;
          return [o.category, o.score.toFixed(2), `box ${[b.left, b.top, b.right, b.bottom].map((v) => v.toFixed(3)).join(',')}`];
        }),
      ),
    );
  },
});

const captureArgs = {
  side: { type: 'string', valueHint: 'rear|front', description: 'camera (default rear)' },
  zoom: { type: 'string', valueHint: 'z', description: 'zoom factor' },
  scaling: SCALING_ARG,
  out: { type: 'string', valueHint: 'file', description: 'where to write the JPEG (required)' },
  ...common,
} as const;

const captureCommand = defineCommand({
  meta: { name: 'capture', description: 'take a photo (app in the foreground): device capture [--side rear|front] [--zoom <z>] [--scaling <size>] --out <file> [--url <u>]' },
  args: captureArgs,
  async run({ args, rawArgs }) {
    checkOptions(rawArgs, 'device capture', captureArgs, 0);
    if (args.out === undefined || args.out === '') throw usageError('--out <file> is required: where to write the photo');
    const request = {
      side: args.side === undefined ? undefined : side(args.side, '--side'),
      zoom: args.zoom === undefined ? undefined : positiveNumber(args.zoom, '--zoom'),
      imageScaling: args.scaling === undefined ? undefined : scalingOf(args.scaling),
    };
    await checkWritable(args.out);
    const shot = await client(args).capture(request);
    await writeOutput(args.out, shot.image);
    if (args.json) return printJson(shot.reply);
    const m = shot.metadata;
    const size = typeof m.outputWidth === 'number' && typeof m.outputHeight === 'number' ? `, ${m.outputWidth}x${m.outputHeight}` : '';
    print(`wrote ${shot.image.length} bytes (${shot.mimeType}${size}) to ${args.out}`);
  },
});

const displayArgs = {
  text: { type: 'positional', required: true, valueHint: 'text', description: 'the text to show full screen on the phone' },
  background: { type: 'string', valueHint: 'color', description: 'background color: #RRGGBB, #AARRGGBB or a name such as navy (default black)' },
  color: { type: 'string', valueHint: 'color', description: 'text color, as --background (default white)' },
  duration: { type: 'string', valueHint: 'seconds', description: 'how long it stays, 0.1 to 30 seconds (default 3)' },
  ...common,
} as const;

const displayCommand = defineCommand({
  meta: { name: 'display', description: 'show text full screen on the phone: device display <text> [--background <color>] [--color <color>] [--duration <seconds>] [--url <u>]' },
  args: displayArgs,
  async run({ args, rawArgs }) {
    checkOptions(rawArgs, 'device display', displayArgs, 1);
    const duration = args.duration === undefined ? undefined : displaySeconds(args.duration);
    const background = args.background === undefined ? undefined : colorOf(args.background, '--background');
    const color = args.color === undefined ? undefined : colorOf(args.color, '--color');
    if (args.text.trim() === '') throw usageError(args.text === '' ? 'the text is empty: give the text to show' : 'the text is only white space: give the text to show');
    const reply = await client(args).display({ text: args.text, backgroundColor: background, textColor: color, duration });
    if (args.json) return printJson(reply);
    print(`showing on the phone for ${(duration ?? 3000) / 1000} s (${reply.displayId})`);
  },
});

const deleteArgs = {
  model: { type: 'positional', required: true, valueHint: 'model', description: 'model id or display name' },
  ...common,
} as const;

const deleteCommand = defineCommand({
  meta: { name: 'delete', description: "delete a model's file from the phone: device delete <model> [--url <u>]" },
  args: deleteArgs,
  async run({ args, rawArgs }) {
    checkOptions(rawArgs, 'device delete', deleteArgs, 1);
    const model = resolveModel(args.model);
    const reply = await client(args).deleteModel(model.id);
    if (args.json) return printJson(reply);
    // The app answers the same whether or not the model was there.
    print(`deleted ${model.displayName} (${model.id}) from the phone, if it was there`);
  },
});

const locationCommand = askCommand(
  'location',
  "the phone's GPS position: device location [--url <u>] (the current app build always answers 403)",
  (c) => c.location(),
  (l) => {
    const extra = [
      l.altitude !== undefined ? `altitude ${l.altitude} m` : undefined,
      l.accuracy !== undefined ? `accuracy ${l.accuracy} m` : undefined,
      l.provider,
      l.timestamp !== undefined ? new Date(l.timestamp).toISOString() : undefined,
    ].filter((v) => v !== undefined);
    print(`latitude ${l.latitude}  longitude ${l.longitude}${extra.length > 0 ? `  (${extra.join(', ')})` : ''}`);
  },
);

const diagnosticsCommand = askCommand(
  'diagnostics',
  "the app's model storage and permission diagnostics: device diagnostics [--url <u>]",
  (c) => c.diagnostics(),
  (d) => {
    const s = d.summary;
    const yes = (v: unknown) => (v === undefined ? '?' : v ? 'yes' : 'no');
    print(
      `${d.diagnostics.trimEnd()}\n\nsummary: storage permission ${yes(s.hasStoragePermissions)}, enhanced storage ${yes(s.hasEnhancedStoragePermissions)}, ` +
        `${s.availableModels ?? '?'} of ${s.totalModels ?? '?'} models found${s.androidVersion !== undefined ? `, Android API ${s.androidVersion}` : ''}`,
    );
  },
);

const healthCommand = askCommand(
  'health',
  'whether the app answers, and its services: device health [--url <u>]',
  (c) => c.health(),
  (h) => {
    const services = Object.entries(h.services ?? {}).map(([k, v]) => `${k} ${v}`);
    print(`${h.status}${services.length > 0 ? `: ${services.join(', ')}` : ''}`);
  },
);

const capabilitiesCommand = askCommand(
  'capabilities',
  'which features the app offers now (its permissions decide): device capabilities [--url <u>]',
  (c) => c.capabilities(),
  (c) => {
    print(
      table(
        Object.entries(c.capabilities).map(([name, f]) => [name, f.available === false ? 'unavailable' : 'available', (f.endpoints ?? []).join(' '), f.available === false ? (f.description ?? '') : '']),
      ),
    );
  },
);

const modelArg = { model: { type: 'positional', required: true, valueHint: 'model', description: 'model id or display name' }, ...common } as const;

const modelStatusCommand = defineCommand({
  meta: { name: 'model-status', description: "a model's file on the phone: device model-status <model> [--url <u>]" },
  args: modelArg,
  async run({ args, rawArgs }) {
    checkOptions(rawArgs, 'device model-status', modelArg, 1);
    const model = resolveModel(args.model);
    const f = await client(args).modelStatus(model.id);
    if (args.json) return printJson(f);
    print(`${model.id}: ${f.downloadStatus}${f.formattedSize ? `, ${f.formattedSize}` : ''}${f.isLoaded ? ', loaded' : ''}${f.downloadPath ? `\n${f.downloadPath}` : ''}`);
  },
});

const loadingCommand = askCommand(
  'loading',
  'whether the app is loading a model (it allows 60 s): device loading [--url <u>]',
  (c) => c.loadingStatus(),
  (l) => {
    print(
      l.isLoading
        ? `loading ${l.modelName ?? 'a model'}: ${l.progressPercentage ?? '?'}%${l.elapsedTime !== undefined ? `, ${(l.elapsedTime / 1000).toFixed(1)} s of ${((l.timeoutTime ?? 60_000) / 1000).toFixed(0)} s` : ''}`
        : 'no model is loading',
    );
  },
);

const storageCommand = askCommand(
  'storage',
  "the app's records of model files: device storage [--url <u>]",
  (c) => c.modelStorage(),
  (st) => {
    print(
      [
        `${st.downloadedModels ?? '?'} of ${st.totalModels} models downloaded${st.formattedTotalSize ? ` (${st.formattedTotalSize})` : ''}, ${st.loadedModels ?? '?'} loaded`,
        ...(st.modelsDirectory ? [`directory: ${st.modelsDirectory}`] : []),
      ].join('\n'),
    );
  },
);

const cleanupCommand = askCommand(
  'cleanup',
  "drop the app's records of model files no longer on the phone: device cleanup [--url <u>]",
  (c) => c.cleanupModels(),
  (c) => {
    print(`dropped the records of ${c.cleanedModels} deleted model file${c.cleanedModels === 1 ? '' : 's'}`);
  },
);

const uploadArgs = {
  model: { type: 'positional', required: true, valueHint: 'model', description: 'model id or display name (any, gated ones too)' },
  source: { type: 'positional', required: true, valueHint: 'url', description: "an http(s) URL of the model's .task file, which the phone fetches" },
  ...common,
} as const;

const uploadCommand = defineCommand({
  meta: { name: 'upload', description: "have the phone fetch a model's file from a URL (waits until done): device upload <model> <url> [--url <u>]" },
  args: uploadArgs,
  async run({ args, rawArgs }) {
    checkOptions(rawArgs, 'device upload', uploadArgs, 2);
    const model = resolveModel(args.model);
    const reply = await client(args).uploadModel({ model: model.id, url: args.source });
    if (args.json) return printJson(reply);
    print(
      reply.status === 'ALREADY_EXISTS'
        ? `${model.displayName}: its file ${model.fileName} is already on the phone (not fetched again, nor checked)`
        : `fetched ${model.displayName} to the phone${typeof reply.model?.size === 'string' ? ` (${reply.model.size})` : ''}`,
    );
  },
});

export const deviceCommand = defineCommand({
  meta: {
    name: 'device',
    description: [
      'Use the AI Phone Server app on a phone (on-device LLMs, object detection, camera, compass, GPS, full-screen text):',
      '  heapql device status|help|models|orientation [--url <u>] [--json]',
      '  heapql device text <prompt> --model <id or name> [--max-tokens <n>] [--image <file>] [--capture rear|front] [--image-out <file> [--scaling <size>]]',
      '  heapql device download <model>',
      '  heapql device detect [--side rear|front] [--zoom <z>] [--threshold <x>] [--max-results <n>] [--image-out <file> [--scaling <size>]]',
      '  heapql device capture [--side rear|front] [--zoom <z>] [--scaling <size>] --out <file>',
      '  heapql device display <text> [--background <color>] [--color <color>] [--duration <seconds>]',
      '  heapql device delete <model>',
      '  heapql device location|diagnostics|health|capabilities|storage|cleanup|loading',
      '  heapql device model-status <model>',
      '  heapql device upload <model> <url>   (the phone fetches the file: gated models too)',
      `Models: ${MODELS.map((m) => `${m.id} (${m.displayName})`).join(', ')}.`,
    ].join('\n'),
  },
  subCommands: {
    status: statusCommand,
    help: helpCommand,
    models: modelsCommand,
    orientation: orientationCommand,
    text: textCommand,
    download: downloadCommand,
    detect: detectCommand,
    capture: captureCommand,
    display: displayCommand,
    delete: deleteCommand,
    location: locationCommand,
    diagnostics: diagnosticsCommand,
    health: healthCommand,
    capabilities: capabilitiesCommand,
    'model-status': modelStatusCommand,
    loading: loadingCommand,
    storage: storageCommand,
    cleanup: cleanupCommand,
    upload: uploadCommand,
  },
});

function client(args: { url?: string; timeout?: string }): DeviceClient {
  const ms = timeoutOption(args.timeout);
  // One limit for every endpoint: a command makes requests of one kind.
  const timeouts = ms === undefined ? undefined : (Object.fromEntries(Object.keys(DEFAULT_DEVICE_TIMEOUTS).map((k) => [k, ms])) as unknown as DeviceTimeouts);
  return serviceClient(args.url, 'HEAPQL_DEVICE_URL', DEFAULT_DEVICE_URL, (url) => new DeviceClient({ url, timeouts }), 'http://192.168.1.20:8005');
}

function scalingOf(text: string): ImageScaling {
  const name = text.toUpperCase() as ImageScaling;
  if (!IMAGE_SCALINGS.includes(name)) throw usageError(`--scaling ${JSON.stringify(text)} is invalid: use ${SCALING_NAMES}`);
  return name;
}

/** A color as the app reads it; the same rule as the library's, worded for the option. */
function colorOf(text: string, option: string): string {
  const fault = colorFault(text);
  if (!fault) return text;
  const advice = fault.longForm ? ` (the app reads no #RGB: write ${fault.longForm})` : '';
  throw usageError(`${option} ${JSON.stringify(text)} is invalid: use #RRGGBB, #AARRGGBB or a color name such as ${COLOR_NAMES.slice(0, 6).join(', ')}${advice}`);
}

/** --duration in seconds, 0.1 to 30 (the app would clamp anything else), as whole milliseconds. */
function displaySeconds(text: string): number {
  const ms = DECIMAL.test(text) ? Number(text) * 1000 : Number.NaN;
  if (!(ms >= 100 && ms <= 30_000) || Math.abs(ms - Math.round(ms)) > 1e-6) {
    throw usageError(`--duration ${JSON.stringify(text)} is invalid: use a number of seconds from 0.1 to 30, to the millisecond (the app would quietly clamp any other)`);
  }
  return Math.round(ms);
}

function side(text: string, option: string): CameraSide {
  if (text !== 'rear' && text !== 'front') throw usageError(`${option} ${JSON.stringify(text)} is invalid: use rear or front`);
  return text;
}

function positiveInt(text: string, option: string): number {
  // The app reads these as 32-bit Ints.
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 2_147_483_647) throw usageError(`${option} ${JSON.stringify(text)} is invalid: use a whole number from 1 to 2147483647`);
  return Number(text);
}

/** A decimal number as typed (`2`, `0.5`, `.5`); Number() alone would also take `0x10`, `1e3` and `Infinity`. */
const DECIMAL = /^(\d+(\.\d*)?|\.\d+)$/;

function positiveNumber(text: string, option: string): number {
  const n = DECIMAL.test(text) ? Number(text) : Number.NaN;
  if (!(n > 0)) throw usageError(`${option} ${JSON.stringify(text)} is invalid: use a positive number`);
  return n;
}

function fraction(text: string, option: string): number {
  const n = DECIMAL.test(text) ? Number(text) : Number.NaN;
  if (!(n >= 0 && n <= 1)) throw usageError(`${option} ${JSON.stringify(text)} is invalid: use a number from 0 to 1`);
  return n;
}

async function readInput(file: string): Promise<Uint8Array> {
  const cannotRead = (err: unknown) => new HeapqlError('ERR_IO', `cannot read image ${file}: ${readProblem(err)}`, { exitCode: 2 });
  // The size first: a huge file is refused without reading it.
  const size = await stat(file).then((st) => st.size, (err: unknown) => Promise.reject(cannotRead(err)));
  const tooLarge = imageTooLarge(size);
  if (tooLarge) throw usageError(`image ${file} ${tooLarge}`);
  try {
    return await readFile(file);
  } catch (err) {
    throw cannotRead(err);
  }
}

/** Why a file could not be read, with its code: `there is no such file (ENOENT)`. */
function readProblem(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return 'there is no such file (ENOENT)';
    case 'EISDIR':
      return 'it is a directory (EISDIR); name an image file';
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${code})`;
    default:
      return code ?? (err as Error).message;
  }
}

/**
 * Fails before the phone is asked (and a photo taken) when the image could not be written: a
 * directory that is missing or not writable, or a directory named as the file. The write
 * itself says the same in the same words should it still fail.
 */
async function checkWritable(file: string): Promise<void> {
  const resolved = path.resolve(file);
  // ERR_IO exits 2, as a report's, waste report's or comparison's output path does.
  const fail = (err: unknown) =>
    new HeapqlError('ERR_IO', cannotWrite(file, fileWriteProblem(err, resolved, { shown: file, suggestedName: `image${path.extname(file) || '.jpg'}` })), { cause: err });
  const existing = await stat(resolved).catch(() => undefined);
  if (existing?.isDirectory()) throw fail(Object.assign(new Error('is a directory'), { code: 'EISDIR' }));
  try {
    await access(existing ? resolved : path.dirname(resolved), fsConstants.W_OK);
  } catch (err) {
    throw fail(err);
  }
}

/** Writes an image to the file the user named; a failure says why in the words of every such writer (file-write-error.ts). */
async function writeOutput(file: string, bytes: Uint8Array): Promise<void> {
  try {
    await writeFile(file, bytes);
  } catch (err) {
    throw new HeapqlError('ERR_IO', cannotWrite(file, fileWriteProblem(err, path.resolve(file), { shown: file, suggestedName: `image${path.extname(file) || '.jpg'}` })), { cause: err });
  }
}


function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => r[i]!.length))) ?? [];
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n');
}

/**
 * `--json`: the phone's reply as it sent it (Gson's pretty JSON), so that a number beyond 2^53
 * keeps its digits; `fallback` (or the value) re-encoded when there is no such text.
 */
function printJson(value: unknown, fallback: unknown = value): void {
  const raw = replyText(value);
  process.stdout.write(raw !== undefined ? `${raw.trimEnd()}\n` : `${JSON.stringify(fallback, null, 2)}\n`);
}
