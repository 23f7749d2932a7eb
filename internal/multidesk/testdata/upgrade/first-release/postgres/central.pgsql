--
-- PostgreSQL database dump
--

\restrict fMUBwG5d6hchR3IrwKDPDrbK0619qnVXvAlz7O8ZbbeNEhnCfYKSGqllYazLfPL

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: changes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.changes (
    seq bigint NOT NULL,
    kind text NOT NULL,
    code text NOT NULL,
    station text NOT NULL,
    data text NOT NULL
);


--
-- Name: changes_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.changes_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: changes_seq_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.changes_seq_seq OWNED BY public.changes.seq;


--
-- Name: codes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.codes (
    id bigint NOT NULL,
    code text NOT NULL,
    random text NOT NULL,
    prefix text DEFAULT ''::text NOT NULL,
    label_date text DEFAULT ''::text NOT NULL,
    station_id text,
    serial integer,
    issued_by text NOT NULL,
    status text DEFAULT 'unused'::text NOT NULL,
    expire_at bigint DEFAULT 0 NOT NULL,
    used_at bigint DEFAULT 0 NOT NULL,
    used_station text DEFAULT ''::text NOT NULL,
    used_operator text DEFAULT ''::text NOT NULL,
    used_event text DEFAULT ''::text NOT NULL,
    disabled_reason text DEFAULT ''::text NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT codes_status_check CHECK ((status = ANY (ARRAY['unused'::text, 'used'::text, 'expired'::text, 'disabled'::text])))
);


--
-- Name: codes_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.codes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: codes_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.codes_id_seq OWNED BY public.codes.id;


--
-- Name: conflicts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.conflicts (
    id bigint NOT NULL,
    code text NOT NULL,
    first_event text NOT NULL,
    first_station text NOT NULL,
    first_operator text NOT NULL,
    first_at bigint NOT NULL,
    second_event text NOT NULL,
    second_station text NOT NULL,
    second_operator text NOT NULL,
    second_at bigint NOT NULL,
    detected_at bigint NOT NULL
);


--
-- Name: conflicts_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.conflicts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: conflicts_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.conflicts_id_seq OWNED BY public.conflicts.id;


--
-- Name: deployment; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.deployment (
    key text NOT NULL,
    value text NOT NULL
);


--
-- Name: events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events (
    id bigint NOT NULL,
    event_id text NOT NULL,
    station text NOT NULL,
    kind text NOT NULL,
    code text NOT NULL,
    operator text DEFAULT ''::text NOT NULL,
    at bigint NOT NULL,
    received_at bigint NOT NULL,
    offline boolean DEFAULT false NOT NULL,
    outcome text NOT NULL,
    detail text DEFAULT ''::text NOT NULL
);


--
-- Name: events_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: events_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.events_id_seq OWNED BY public.events.id;


--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_migrations (
    version integer NOT NULL,
    applied_at bigint NOT NULL
);


--
-- Name: stations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.stations (
    id bigint NOT NULL,
    name text NOT NULL,
    token_hash text NOT NULL,
    created_at bigint NOT NULL,
    revoked_at bigint DEFAULT 0 NOT NULL
);


--
-- Name: stations_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.stations_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: stations_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.stations_id_seq OWNED BY public.stations.id;


--
-- Name: changes seq; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.changes ALTER COLUMN seq SET DEFAULT nextval('public.changes_seq_seq'::regclass);


--
-- Name: codes id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.codes ALTER COLUMN id SET DEFAULT nextval('public.codes_id_seq'::regclass);


--
-- Name: conflicts id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conflicts ALTER COLUMN id SET DEFAULT nextval('public.conflicts_id_seq'::regclass);


--
-- Name: events id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events ALTER COLUMN id SET DEFAULT nextval('public.events_id_seq'::regclass);


--
-- Name: stations id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.stations ALTER COLUMN id SET DEFAULT nextval('public.stations_id_seq'::regclass);


--
-- Data for Name: changes; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.changes VALUES (1, 'code', 'WH-261202-A0001-5KJUT4LXV44R-AN5CBVZHT', 'Desk 1', '{"created_at":1796174602,"expire_at":0}');
INSERT INTO public.changes VALUES (2, 'code', 'WH-261202-A0002-YE73XHSZZ76W-AF4PTCHET', 'Desk 1', '{"created_at":1796174602,"expire_at":0}');
INSERT INTO public.changes VALUES (3, 'code', 'WH-261202-A0003-E8JBNTCX9RK9-ABH65P94M', 'Desk 1', '{"created_at":1796174602,"expire_at":0}');
INSERT INTO public.changes VALUES (4, 'code', 'WH-261202-A0004-5BL26GNWYCGK-A7SLVQCUB', 'Desk 1', '{"created_at":1796174602,"expire_at":0}');
INSERT INTO public.changes VALUES (5, 'code', 'WH-261202-A0005-NJAFKPGAR3HZ-A9FLECFD9', 'Desk 1', '{"created_at":1796174602,"expire_at":0}');
INSERT INTO public.changes VALUES (6, 'code', 'WH-261202-A0006-BGFXQK2DEERQ-AQAZA8E93', 'Desk 1', '{"created_at":1796174602,"expire_at":0}');
INSERT INTO public.changes VALUES (7, 'code', 'WH-261202-A0007-X4ZPAD7XRR2S-AMWDABZB8', 'Desk 1', '{"created_at":1796174602,"expire_at":0}');
INSERT INTO public.changes VALUES (8, 'code', 'WH-261202-A0008-4CXVALTNTXUS-AVT8YRLRU', 'Desk 1', '{"created_at":1796174602,"expire_at":0}');
INSERT INTO public.changes VALUES (9, 'code', 'WH-261202-B0001-R7NXSJRQH9Q6-ARX55NL9B', 'Desk 2', '{"created_at":1796174602,"expire_at":0}');
INSERT INTO public.changes VALUES (10, 'code', 'WH-261202-B0002-VEPHTY23TU2U-A8JLP2F8T', 'Desk 2', '{"created_at":1796174602,"expire_at":0}');
INSERT INTO public.changes VALUES (11, 'code', 'WH-261202-B0003-JPJ5GKDQWW2G-AKBYAWSL9', 'Desk 2', '{"created_at":1796174602,"expire_at":0}');
INSERT INTO public.changes VALUES (12, 'code', 'WH-261202-B0004-HW93CHVV3E9W-ABGXBG8DA', 'Desk 2', '{"created_at":1796174602,"expire_at":0}');
INSERT INTO public.changes VALUES (13, 'redeem', 'WH-261202-A0001-5KJUT4LXV44R-AN5CBVZHT', 'Desk 1', '{"at":1796174603,"event_id":"662045be0b04d422","operator":"li"}');
INSERT INTO public.changes VALUES (14, 'redeem', 'WH-261202-A0002-YE73XHSZZ76W-AF4PTCHET', 'Desk 2', '{"at":1796174603,"event_id":"a887e6ae6d65c178","operator":"wang"}');


--
-- Data for Name: codes; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.codes VALUES (3, 'WH-261202-A0003-E8JBNTCX9RK9-ABH65P94M', 'E8JBNTCX9RK9', 'WH', '2026-12-02', 'A', 3, 'Desk 1', 'unused', 0, 0, '', '', '', '', 1796174602);
INSERT INTO public.codes VALUES (4, 'WH-261202-A0004-5BL26GNWYCGK-A7SLVQCUB', '5BL26GNWYCGK', 'WH', '2026-12-02', 'A', 4, 'Desk 1', 'unused', 0, 0, '', '', '', '', 1796174602);
INSERT INTO public.codes VALUES (5, 'WH-261202-A0005-NJAFKPGAR3HZ-A9FLECFD9', 'NJAFKPGAR3HZ', 'WH', '2026-12-02', 'A', 5, 'Desk 1', 'unused', 0, 0, '', '', '', '', 1796174602);
INSERT INTO public.codes VALUES (6, 'WH-261202-A0006-BGFXQK2DEERQ-AQAZA8E93', 'BGFXQK2DEERQ', 'WH', '2026-12-02', 'A', 6, 'Desk 1', 'unused', 0, 0, '', '', '', '', 1796174602);
INSERT INTO public.codes VALUES (7, 'WH-261202-A0007-X4ZPAD7XRR2S-AMWDABZB8', 'X4ZPAD7XRR2S', 'WH', '2026-12-02', 'A', 7, 'Desk 1', 'unused', 0, 0, '', '', '', '', 1796174602);
INSERT INTO public.codes VALUES (8, 'WH-261202-A0008-4CXVALTNTXUS-AVT8YRLRU', '4CXVALTNTXUS', 'WH', '2026-12-02', 'A', 8, 'Desk 1', 'unused', 0, 0, '', '', '', '', 1796174602);
INSERT INTO public.codes VALUES (9, 'WH-261202-B0001-R7NXSJRQH9Q6-ARX55NL9B', 'R7NXSJRQH9Q6', 'WH', '2026-12-02', 'B', 1, 'Desk 2', 'unused', 0, 0, '', '', '', '', 1796174602);
INSERT INTO public.codes VALUES (10, 'WH-261202-B0002-VEPHTY23TU2U-A8JLP2F8T', 'VEPHTY23TU2U', 'WH', '2026-12-02', 'B', 2, 'Desk 2', 'unused', 0, 0, '', '', '', '', 1796174602);
INSERT INTO public.codes VALUES (11, 'WH-261202-B0003-JPJ5GKDQWW2G-AKBYAWSL9', 'JPJ5GKDQWW2G', 'WH', '2026-12-02', 'B', 3, 'Desk 2', 'unused', 0, 0, '', '', '', '', 1796174602);
INSERT INTO public.codes VALUES (12, 'WH-261202-B0004-HW93CHVV3E9W-ABGXBG8DA', 'HW93CHVV3E9W', 'WH', '2026-12-02', 'B', 4, 'Desk 2', 'unused', 0, 0, '', '', '', '', 1796174602);
INSERT INTO public.codes VALUES (1, 'WH-261202-A0001-5KJUT4LXV44R-AN5CBVZHT', '5KJUT4LXV44R', 'WH', '2026-12-02', 'A', 1, 'Desk 1', 'used', 0, 1796174603, 'Desk 1', 'li', '662045be0b04d422', '', 1796174602);
INSERT INTO public.codes VALUES (2, 'WH-261202-A0002-YE73XHSZZ76W-AF4PTCHET', 'YE73XHSZZ76W', 'WH', '2026-12-02', 'A', 2, 'Desk 1', 'used', 0, 1796174603, 'Desk 2', 'wang', 'a887e6ae6d65c178', '', 1796174602);


--
-- Data for Name: conflicts; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: deployment; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.deployment VALUES ('ring_id', '79e688a5cc90342a');


--
-- Data for Name: events; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.events VALUES (1, '662045be0b04d422', 'Desk 1', 'redeem', 'WH-261202-A0001-5KJUT4LXV44R-AN5CBVZHT', 'li', 1796174603, 1796174603, false, 'redeemed', '{"event_id":"662045be0b04d422","outcome":"redeemed","used_at":1796174603,"used_station":"Desk 1","used_operator":"li"}');
INSERT INTO public.events VALUES (2, 'a887e6ae6d65c178', 'Desk 2', 'redeem', 'WH-261202-A0002-YE73XHSZZ76W-AF4PTCHET', 'wang', 1796174603, 1796174603, false, 'redeemed', '{"event_id":"a887e6ae6d65c178","outcome":"redeemed","used_at":1796174603,"used_station":"Desk 2","used_operator":"wang"}');


--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.schema_migrations VALUES (1, 1796174600);


--
-- Data for Name: stations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.stations VALUES (1, 'Desk 1', '741dea75617769c80846576be5456393b98f13e00190d1a5a165c90d3ca22136', 1796174600, 0);
INSERT INTO public.stations VALUES (2, 'Desk 2', '9aeda0a976abab0986c20deeb95ecd796b1d65f82aae1c07626de4c279f04334', 1796174600, 0);


--
-- Name: changes_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.changes_seq_seq', 14, true);


--
-- Name: codes_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.codes_id_seq', 12, true);


--
-- Name: conflicts_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.conflicts_id_seq', 1, false);


--
-- Name: events_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.events_id_seq', 2, true);


--
-- Name: stations_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.stations_id_seq', 2, true);


--
-- Name: changes changes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.changes
    ADD CONSTRAINT changes_pkey PRIMARY KEY (seq);


--
-- Name: codes codes_code_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.codes
    ADD CONSTRAINT codes_code_key UNIQUE (code);


--
-- Name: codes codes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.codes
    ADD CONSTRAINT codes_pkey PRIMARY KEY (id);


--
-- Name: codes codes_random_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.codes
    ADD CONSTRAINT codes_random_key UNIQUE (random);


--
-- Name: codes codes_serial_label_date_station_id_prefix_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.codes
    ADD CONSTRAINT codes_serial_label_date_station_id_prefix_key UNIQUE (serial, label_date, station_id, prefix);


--
-- Name: conflicts conflicts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conflicts
    ADD CONSTRAINT conflicts_pkey PRIMARY KEY (id);


--
-- Name: conflicts conflicts_second_event_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conflicts
    ADD CONSTRAINT conflicts_second_event_key UNIQUE (second_event);


--
-- Name: deployment deployment_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deployment
    ADD CONSTRAINT deployment_pkey PRIMARY KEY (key);


--
-- Name: events events_event_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_event_id_key UNIQUE (event_id);


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: stations stations_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.stations
    ADD CONSTRAINT stations_name_key UNIQUE (name);


--
-- Name: stations stations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.stations
    ADD CONSTRAINT stations_pkey PRIMARY KEY (id);


--
-- Name: stations stations_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.stations
    ADD CONSTRAINT stations_token_hash_key UNIQUE (token_hash);


--
-- Name: conflicts_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX conflicts_at ON public.conflicts USING btree (first_at);


--
-- PostgreSQL database dump complete
--

\unrestrict fMUBwG5d6hchR3IrwKDPDrbK0619qnVXvAlz7O8ZbbeNEhnCfYKSGqllYazLfPL

