// The longest delay Node's timers take: a larger one (or NaN) fires after 1 ms with a
// TimeoutOverflowWarning, so a limit of 2^31 ms ended every run at once as TIMEOUT. Every
// option a timer is set from is refused past it, or clamped to it where "longer" means "never".

/** 2^31 - 1 ms, about 24.8 days. */
export const MAX_TIMER_MS = 2_147_483_647;
