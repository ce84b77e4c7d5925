// `@resumable/server/ai-sdk`: the AI SDK as the server's agent. The agent's and the files'
// types are the main entry's, named here too: what this entry's functions take and return.
export type { Agent, AgentContext, AgentLimits } from '../agents/types.js';
export type { ReadFile } from '../files/references.js';
export type { StoredFile } from '../stores/types.js';
export {
  type AiSdkAgentOptions,
  type AiSdkCall,
  type AiSdkStream,
  aiSdkAgent,
} from './agent.js';
export { type AiSdkEventsOptions, type AiSdkStreamPart, aiSdkEvents } from './events.js';
export { type AiSdkPrompt, clientTools, toModelPrompt } from './messages.js';
