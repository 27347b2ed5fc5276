# SPDX-License-Identifier: MIT
# What zestub writes. For now the JSON string writer every output shares.
noinst_LTLIBRARIES += libreport.la
libreport_la_SOURCES = report/json.c report/json.h
