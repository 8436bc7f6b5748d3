export { startListener } from './server.js';
export { replayRecording, type ReplayEvent, type ReplayStats } from './replay.js';
export { listenOptionIssues, resolveListenOptions, LISTEN_DEFAULTS, httpUrlIssue } from './options.js';
export { signPayload, verifySignature, parseSignatureHeader, signatureOf, SIGNATURE_HEADER, DEFAULT_TOLERANCE_SECONDS } from './signature.js';
export type { SignatureFailure, SignatureVerdict, VerifyOptions } from './signature.js';
export { summarize, type CallbackSummary, type ReceivedCallback } from './callback.js';
export { readRecording, recordOf, recordedBody, type RecordedCallback } from './recording.js';
export type { ForwardResult } from './forward.js';
export type * from './types.js';
