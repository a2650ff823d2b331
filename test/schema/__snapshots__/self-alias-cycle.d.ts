interface SelfAliasCycle {
  loop?: SelfAliasCycleLoop;
  ping?: SelfAliasCyclePing;
}

type SelfAliasCycleLoop = unknown /* $ref #/$defs/loop refers to itself */ | null;

type SelfAliasCyclePing = SelfAliasCyclePong;

type SelfAliasCyclePong = unknown /* $ref #/$defs/ping refers to itself */ | string;
