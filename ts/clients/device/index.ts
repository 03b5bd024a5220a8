/** `heapql/device`: client of the AI Phone Server (on-device LLMs, object detection, camera, compass). */
export { DeviceClient, decodeDataUri, COLOR_NAMES, replyText, IMAGE_SCALINGS, MAX_IMAGE_BYTES, imageTooLarge, DEFAULT_DEVICE_URL, DEFAULT_DEVICE_TIMEOUTS, type DeviceClientOptions, type DeviceTimeouts } from './client.js';
export { MODELS, resolveModel, type ModelSpec } from './models.js';
export type {
  CameraSide,
  CaptureConfig,
  CaptureRequest,
  CaptureResult,
  DetectedObject,
  DetectionReply,
  DetectRequest,
  DeviceHealth,
  DeviceHelp,
  DeviceStatus,
  DisplayReply,
  DisplayRequest,
  Location,
  ModelDiagnostics,
  ModelRemoval,
  LoadingStatus,
  ModelFileStatus,
  DownloadReply,
  ImageScaling,
  ModelInfo,
  Orientation,
  TextReply,
  TextRequest,
} from './types.js';
export {
  ServiceError,
  ServiceUnavailableError,
  ServiceTimeoutError,
  ServiceHttpError,
  ServiceProtocolError,
  ServiceFailureError,
  ServiceAbortedError,
  ModelMismatchError,
  InvalidArgumentError,
} from '../errors.js';
