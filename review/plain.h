/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * A request in plain words, for people who do not know what a syscall is
 * (a demo's audience, a stakeholder at the console): "wants to change
 * /etc/hosts (a system file, outside its folders)", "wants to connect to
 * pypi.org (151.101.0.223) on port 443", "wants to install wardtiny with
 * pip, from pypi.org". The engineering (syscall, flags, mode, rule) stays
 * in the request's detail. Built from the request's own escaped fields,
 * so the sentence is as safe to print as they are.
 */
#include "approvals/request.h"

/* The sentence (malloc'd), starting with "wants to" or a verb. */
char	*plain_request(const struct request *);
/* The same for a screen that shows the path beside it: a write's path
 * left out ("wants to change a system file"). */
char	*plain_request_brief(const struct request *);
/* What a path is, for a person: "a system file", "an SSH key file",
 * "a shell start-up file", "a file in a home folder", "a program file",
 * "a file". */
const char *plain_path_kind(const char *path);
