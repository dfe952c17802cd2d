import { describe, expect, it } from '@jest/globals';

import { topicReplication } from './topic-settings.js';

describe('topicReplication', () => {
  it('keeps all copies but one in sync, so one broker may be down', () => {
    expect(topicReplication(3)).toEqual({ replicationFactor: 3, minInsyncReplicas: 2 });
    expect(topicReplication(2)).toEqual({ replicationFactor: 2, minInsyncReplicas: 1 });
    expect(topicReplication(1)).toEqual({ replicationFactor: 1, minInsyncReplicas: 1 });
  });

  it("leaves both to the broker's defaults with -1", () => {
    expect(topicReplication(-1)).toEqual({ replicationFactor: -1 });
  });
});
