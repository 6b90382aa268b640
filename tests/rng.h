/* rng.h - the tests' random numbers: xorshift64*, from a state each test
 * seeds itself, so that every run sees the same corpus. Owns nothing
 * else; never for the program (it is not a secure generator). */
#ifndef AB_TESTS_RNG_H
#define AB_TESTS_RNG_H

#include <stdint.h>

static inline uint64_t xorshift64s(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dULL;
}

#endif
