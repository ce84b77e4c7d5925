import { Icon } from './icons.js';

// ‹ › of <BranchNav>, beside the kit's own icons (decorative: every button has a name).

export function ChevronLeftIcon() {
  return (
    <Icon>
      <path d="m15 18-6-6 6-6" />
    </Icon>
  );
}

export function ChevronRightIcon() {
  return (
    <Icon>
      <path d="m9 18 6-6-6-6" />
    </Icon>
  );
}
