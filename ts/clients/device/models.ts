/**
 * The five language models of the AI Phone Server. Users may name a model by id or display name;
 * the client always sends the id, because the server silently falls back to GEMMA_3_1B_IT for a
 * name it does not know instead of refusing it.
 */
import { InvalidArgumentError } from '../errors.js';
import { describeValue } from '../http.js';

export interface ModelSpec {
  id: string;
  displayName: string;
  /** Takes image input (only one model does). */
  vision: boolean;
  /** Hugging Face gated: the server refuses to download it (400 AUTH_REQUIRED); install it in the app. */
  gated: boolean;
  /** The model file's name on the phone (Download/local_ai_models/): how the app finds the model. */
  fileName: string;
}

export const MODELS: readonly ModelSpec[] = [
  { id: 'GEMMA_3_1B_IT', displayName: 'Gemma 3n E2B IT', vision: true, gated: true, fileName: 'gemma-3n-E2B-it-int4.task' },
  { id: 'DEEPSEEK_R1_DISTILL_QWEN_1_5B', displayName: 'DeepSeek-R1 Distill Qwen 1.5B', vision: false, gated: false, fileName: 'DeepSeek-R1-Distill-Qwen-1.5B_multi-prefill-seq_q8_ekv1280.task' },
  { id: 'LLAMA_3_2_1B_INSTRUCT', displayName: 'Llama 3.2 1B Instruct', vision: false, gated: true, fileName: 'Llama-3.2-1B-Instruct_multi-prefill-seq_q8_ekv1280.task' },
  { id: 'LLAMA_3_2_3B_INSTRUCT', displayName: 'Llama 3.2 3B Instruct', vision: false, gated: true, fileName: 'Llama-3.2-3B-Instruct_multi-prefill-seq_q8_ekv1280.task' },
  { id: 'TINYLLAMA_1_1B_CHAT', displayName: 'TinyLlama 1.1B Chat', vision: false, gated: false, fileName: 'TinyLlama-1.1B-Chat-v1.0_multi-prefill-seq_q8_ekv1024.task' },
];

/** Finds a model by id or display name (exact first, then ignoring case). */
export function resolveModel(name: string): ModelSpec {
  const known = MODELS.map((m) => `${m.id} (${m.displayName})`).join(', ');
  if (name === undefined || name === null) throw new InvalidArgumentError(`a model is required: use one of ${known}`);
  if (typeof name !== 'string') throw new InvalidArgumentError(`a model name must be a string, got ${describeValue(name)}: use one of ${known}`);
  if (name.trim() === '') throw new InvalidArgumentError(`a model is required: use one of ${known}`);
  const exact = MODELS.find((m) => m.id === name || m.displayName === name);
  if (exact) return exact;
  const folded = name.trim().toLowerCase();
  const loose = MODELS.find((m) => m.id.toLowerCase() === folded || m.displayName.toLowerCase() === folded);
  if (loose) return loose;
  throw new InvalidArgumentError(`unknown model ${JSON.stringify(name)}: use one of ${known}`);
}
