/* xrealloc_array rounds sizes up to a power of two, so that an array grown
 * an element at a time moves (with musl: a new mapping and the old one
 * unmapped) only when it doubles; exactly the size asked for under
 * AddressSanitizer, which sees an overrun only past that size. Linux only:
 * malloc_usable_size. */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/util.h"
#include "tap.h"

struct elem {
	char bytes[24];
};

int main(void)
{
	struct elem *a = xrealloc_array(NULL, 3, sizeof(*a));
	size_t usable = malloc_usable_size(a);
#ifdef UNDER_ASAN
	CHECK(usable == 3 * sizeof(*a), "under ASan a block is what was asked for (%zu)", usable);
#else
	CHECK(usable >= 128, "3 elements of 24 bytes get a 128-byte block or more (%zu)", usable);
#endif
	size_t moves = 0;
	for (size_t n = 4; n <= 1000; n++) {
		struct elem *b = xrealloc_array(a, n, sizeof(*a));
		moves += b != a;
		b[n - 1].bytes[0] = (char)n; /* the new element is there to write */
		a = b;
	}
#ifndef UNDER_ASAN
	CHECK(moves <= 12, "growing to 1,000 elements, one at a time, moved it %zu times", moves);
#endif
	CHECK(a[999].bytes[0] == (char)1000 && a[3].bytes[0] == 4,
	      "the elements survive the moves");
	free(a);
	return tap_done();
}
