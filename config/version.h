/* SPDX-License-Identifier: MIT */
#pragma once
/* ward's version, one place for ward, ward-supervisor and debian/changelog
 * (tests/live/t-install.sh checks that they agree). */
#define WARD_VERSION "0.1.0"
