// `@resumable/server/testing`: what `scriptedAgent` will say, so a test can assert the exact
// text of a reply (the tokens of a prompt, the time line of `timeLead`), and the seeded
// generator it draws them from.
export { mulberry32, replyTokens, timeLead } from './agents/scripted.js';
