export {
  type AiSdkAgentOptions,
  type AiSdkCall,
  type AiSdkStream,
  aiSdkAgent,
} from './agent.js';
export { type AiSdkEventsOptions, type AiSdkStreamPart, aiSdkEvents } from './events.js';
export { type AiSdkPrompt, clientTools, toModelPrompt } from './messages.js';
