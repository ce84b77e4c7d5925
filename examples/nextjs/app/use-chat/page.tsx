import { Chat } from './chat';

export default function UseChatPage() {
  return (
    <main>
      <Chat />
    </main>
  );
}
