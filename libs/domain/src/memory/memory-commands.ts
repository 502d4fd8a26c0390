export interface RememberPreference {
  type: 'RememberPreference';
  fact: string;
  namespace: string;
  source: 'chat';
}

export type MemoryCommand = RememberPreference;
