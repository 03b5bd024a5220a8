/**
 * Reply shapes of the AI Phone Server, as far as the client relies on them. The server omits
 * null fields (Gson), so optional keys are absent rather than null; unknown extra keys are kept.
 */

export type CameraSide = 'rear' | 'front';

/**
 * Size and JPEG quality of an image the app returns: SMALL 512 px / 70, MEDIUM 1024 px / 85
 * (the app's default), LARGE 2048 px / 90, ULTRA 4096 px / 95, NONE the camera's own / 95.
 */
export type ImageScaling = 'NONE' | 'SMALL' | 'MEDIUM' | 'LARGE' | 'ULTRA';

export interface DeviceStatus {
  status: string;
  timestamp?: number;
  server?: string;
  version?: string;
  features?: Record<string, boolean>;
  permissions?: Record<string, boolean>;
  ai?: {
    isEnabled?: boolean;
    downloadedModels?: number;
    totalModels?: number;
    currentModel?: string;
    hasAuthentication?: boolean;
    /** A generation is running on the phone (since processingStartTime, epoch ms). */
    isProcessing?: boolean;
    processingStartTime?: number;
    isModelLoading?: boolean;
    modelLoadingStartTime?: number;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export interface DeviceHealth {
  status: 'healthy';
  /** location, orientation, camera: `available`. */
  services?: Record<string, string>;
  [key: string]: unknown;
}

/** One model's file on the phone (GET /ai/models/{name}/status). */
export interface ModelFileStatus {
  /** DOWNLOADING | COMPLETED | FAILED | CORRUPTED | DELETED */
  downloadStatus: string;
  downloadPath?: string;
  fileSize?: number;
  formattedSize?: string;
  downloadTimestamp?: number;
  lastAccessedTimestamp?: number;
  isLoaded?: boolean;
  ageInDays?: number;
  [key: string]: unknown;
}

/** GET /ai/models/loading-status: idle ({isLoading: false, message}) or loading. */
export interface LoadingStatus {
  isLoading: boolean;
  message?: string;
  /** While loading: ms since the load began, of timeoutTime (60000). */
  elapsedTime?: number;
  timeoutTime?: number;
  progressPercentage?: number;
  modelName?: string;
  [key: string]: unknown;
}

export interface DeviceHelp {
  server?: string;
  version?: string;
  base_url?: string;
  endpoints?: Record<string, { description?: string; [key: string]: unknown }>;
  [key: string]: unknown;
}

export interface ModelInfo {
  /** The model id, e.g. TINYLLAMA_1_1B_CHAT. */
  name: string;
  displayName: string;
  description?: string;
  needsLicense?: boolean;
  available: boolean;
  currentlyLoaded?: boolean;
  backend?: string;
  isMultiModal?: boolean;
  [key: string]: unknown;
}

/**
 * A download that succeeded: downloadModel() throws for anything else (`success: false`, the
 * app's `download_failed`, the help's `auth_required`).
 */
export interface DownloadReply {
  success: true;
  message?: string;
  /** Display name. */
  modelName?: string;
  /** already_available, or download_started: the app answers only when the download has completed. */
  status: 'already_available' | 'download_started';
  downloadUrl?: string;
  persistenceInfo?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface CaptureConfig {
  camera?: CameraSide;
  quality?: number;
  maxWidth?: number;
  maxHeight?: number;
}

export interface TextRequest {
  text: string;
  /** Model id or display name. */
  model: string;
  /** Sent, but the server currently ignores it (its engine has a fixed 1024-token context). */
  maxTokens?: number;
  /**
   * Sampling, applied by the app only on its multimodal path (GEMMA_3_1B_IT with an image or
   * captureConfig); a text-only generation ignores them, so the client refuses them there.
   */
  temperature?: number;
  topK?: number;
  topP?: number;
  /** Image bytes, or base64 (a data: URI prefix is stripped); only for a vision model. */
  image?: Uint8Array | string;
  /** Take a photo with the phone's camera instead of passing an image; only for a vision model. */
  captureConfig?: CaptureConfig;
  /**
   * Have the app take a new photo with the rear camera after generating and return it as `image`
   * (any model). The app leaves it out, without saying why, when it cannot take it.
   */
  returnImage?: boolean;
  /** Size of that photo (only with returnImage); MEDIUM when not given (the app needs one). */
  imageScaling?: ImageScaling;
}

export interface TextReply {
  response: string;
  /** Model id. */
  model: string;
  /** DeepSeek's extracted <think> part. */
  thinking?: string;
  license?: string;
  metadata?: {
    model?: string;
    inferenceTime?: number;
    tokenCount?: number;
    backend?: string;
    isMultimodal?: boolean;
    [key: string]: unknown;
  };
  /** With returnImage: the photo taken after generating, a JPEG data URI (absent when the app could not take it). */
  image?: string;
  [key: string]: unknown;
}

export interface DetectRequest {
  side?: CameraSide;
  /** Camera zoom factor, as for capture. */
  zoom?: number;
  /** Score threshold in [0, 1]; default 0.5. */
  threshold?: number;
  /** Default 10. */
  maxResults?: number;
  /** Attach the captured frame as a JPEG data URI (`image`). */
  returnImage?: boolean;
  /** Size of the attached frame; the app's default is MEDIUM. */
  imageScaling?: ImageScaling;
}

export interface DetectedObject {
  category: string;
  score: number;
  /** Normalized to 0…1 of the frame. */
  boundingBox: { left: number; top: number; right: number; bottom: number; width: number; height: number };
  categoryIndex?: number;
  [key: string]: unknown;
}

/** A detection that succeeded: detectObjects() throws for a reply without `success: true`. */
export interface DetectionReply {
  success: true;
  objects: DetectedObject[];
  inferenceTime?: number;
  captureTime?: number;
  threshold?: number;
  imageMetadata?: Record<string, unknown>;
  /** data:image/jpeg;base64,… when returnImage was set; decodeDataUri turns it into bytes. */
  image?: string;
  error?: string;
  [key: string]: unknown;
}

export interface Orientation {
  /** Degrees, 0…360. */
  azimuth: number;
  pitch: number;
  roll: number;
  timestamp?: number;
  /** UNKNOWN with zeros before the sensors report; orientation() refuses any other value. */
  accuracy?: 'HIGH' | 'MEDIUM' | 'LOW' | 'UNKNOWN';
  [key: string]: unknown;
}

export interface CaptureRequest {
  side?: CameraSide;
  zoom?: number;
  /** Size of the photo; the app's default is MEDIUM (1024 px). */
  imageScaling?: ImageScaling;
}

export interface CaptureResult {
  /** The JPEG bytes. */
  image: Uint8Array;
  mimeType: string;
  metadata: Record<string, unknown>;
  /** The server's reply as received (image still base64). */
  reply: Record<string, unknown>;
}

/**
 * POST /display: text shown full screen on the phone. Colors are `#RRGGBB`, `#AARRGGBB` or a
 * color name (red, navy, transparent …); the app's defaults are black text background
 * `#000000`, text `#FFFFFF`, 3000 ms.
 */
export interface DisplayRequest {
  text: string;
  backgroundColor?: string;
  textColor?: string;
  /** Milliseconds on screen, 100…30000 (the app would clamp anything else to that range). */
  duration?: number;
}

export interface DisplayReply {
  success: true;
  message?: string;
  /** `display_<epoch ms>`. */
  displayId: string;
  /** What the app was asked to show, echoed (duration as sent, before its clamping). */
  parameters?: { text?: string; backgroundColor?: string; textColor?: string; duration?: number; [key: string]: unknown };
  [key: string]: unknown;
}

/** GET /location: the phone's last GPS fix. */
export interface Location {
  /** Degrees, -90…90. */
  latitude: number;
  /** Degrees, -180…180. */
  longitude: number;
  /** Metres (0 when the fix has none). */
  altitude?: number;
  /** Metres (0 when the fix has none). */
  accuracy?: number;
  /** Epoch milliseconds of the fix. */
  timestamp?: number;
  /** `gps`, `network`, `fused` … */
  provider?: string;
  /** The app may read the location while it is in the background. */
  backgroundAccess?: boolean;
  [key: string]: unknown;
}

/** GET /ai/models/diagnostics: storage and permission diagnostics of the model files. */
export interface ModelDiagnostics {
  timestamp?: number;
  /** A multi-line report (device, permissions, each model directory and whether it can be written). */
  diagnostics: string;
  summary: {
    hasStoragePermissions?: boolean;
    hasEnhancedStoragePermissions?: boolean;
    /** Models whose files the app found. */
    availableModels?: number;
    totalModels?: number;
    /** Android API level. */
    androidVersion?: number;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** DELETE /ai/models/{id}. */
export interface ModelRemoval {
  success: true;
  message?: string;
  /** The model id, echoed from the request. */
  modelName?: string;
  [key: string]: unknown;
}

/** GET /capabilities: which features the app offers now (its permissions decide) and their endpoints. */
export interface DeviceCapabilities {
  server?: string;
  /** `1.0.0-simplified` (not the /status version). */
  version?: string;
  capabilities: Record<string, { available?: boolean; endpoints?: string[]; methods?: string[]; description?: string; [key: string]: unknown }>;
  features?: Record<string, boolean>;
  /** Always 8005 (hard-coded in the app). */
  port?: number;
  timestamp?: number;
  [key: string]: unknown;
}

/** GET /: the app's banner and the paths it lists. */
export interface DeviceBanner {
  server?: string;
  version?: string;
  message?: string;
  documentation?: string;
  available_endpoints: string[];
  [key: string]: unknown;
}

/** GET /ai/models/status: the app's records of model files. */
export interface ModelStorage {
  totalModels: number;
  downloadedModels?: number;
  loadedModels?: number;
  /** Bytes. */
  totalDownloadSize?: number;
  formattedTotalSize?: string;
  lastLoadedModel?: string;
  modelsDirectory?: string;
  availableModels: Record<string, unknown>[];
  statistics?: Record<string, unknown>;
  [key: string]: unknown;
}

/** POST /ai/models/cleanup. */
export interface ModelCleanup {
  success: true;
  message?: string;
  /** Records dropped of model files no longer on the phone. */
  cleanedModels: number;
  [key: string]: unknown;
}

/** POST /ai/text/upload-model-api: the phone fetches a model's file from a URL given. */
export interface UploadRequest {
  /** Model id or display name: the file is saved under that model's file name. */
  model: string;
  /** An http:// or https:// URL of the model file (a mirror, or a gated model's URL the phone may fetch). */
  url: string;
}

export interface UploadReply {
  success: true;
  message?: string;
  model?: { name?: string; fileName?: string; url?: string; size?: string; path?: string; [key: string]: unknown };
  /** ALREADY_EXISTS: a file of that name was there (the app does not check it); DOWNLOADED. */
  status: 'ALREADY_EXISTS' | 'DOWNLOADED';
  [key: string]: unknown;
}
