--
-- PostgreSQL database dump
--

-- Dumped from database version 16.2
-- Dumped by pg_dump version 16.2

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

--
-- Name: attribute_vocab_changed(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.attribute_vocab_changed() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN IF (NEW.name IS DISTINCT FROM OLD.name OR NEW.type IS DISTINCT FROM OLD.type OR NEW.synonyms IS DISTINCT FROM OLD.synonyms) AND NEW.changed_at IS NOT DISTINCT FROM OLD.changed_at THEN NEW.changed_at := cir_now(); END IF; RETURN NEW; END $$;


--
-- Name: attribute_vocab_identity(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.attribute_vocab_identity() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN IF NEW.uid IS NULL OR NEW.origin_copy IS NULL THEN NEW.uid := coalesce(NEW.uid, cir_uid()); NEW.origin_copy := coalesce(NEW.origin_copy, (SELECT value FROM meta WHERE key = 'origin_id')); NEW.changed_at := coalesce(NEW.changed_at, cir_now()); END IF; RETURN NEW; END $$;


--
-- Name: audit_log_identity(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.audit_log_identity() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN IF NEW.uid IS NULL OR NEW.origin_copy IS NULL THEN NEW.uid := coalesce(NEW.uid, cir_uid()); NEW.origin_copy := coalesce(NEW.origin_copy, (SELECT value FROM meta WHERE key = 'origin_id')); NEW.entity_uid := coalesce(NEW.entity_uid, CASE NEW.entity WHEN 'caption' THEN (SELECT uid FROM captions WHERE id = cir_int(NEW.entity_id)) WHEN 'pair' THEN (SELECT uid FROM pairs WHERE id = cir_int(NEW.entity_id)) WHEN 'rating' THEN (SELECT uid FROM rating_assignments WHERE id = cir_int(NEW.entity_id)) WHEN 'rating_assignment' THEN (SELECT uid FROM rating_assignments WHERE id = cir_int(NEW.entity_id)) WHEN 'retrieval_session' THEN (SELECT uid FROM retrieval_sessions WHERE id = cir_int(NEW.entity_id)) WHEN 'attribute_vocab' THEN (SELECT uid FROM attribute_vocab WHERE id = cir_int(NEW.entity_id)) WHEN 'transaction_turn' THEN (SELECT uid FROM transaction_turns WHERE transaction_id || ':' || turn_index = NEW.entity_id) END); END IF; RETURN NEW; END $$;


--
-- Name: captions_identity(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.captions_identity() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN IF NEW.uid IS NULL OR NEW.origin_copy IS NULL THEN NEW.uid := coalesce(NEW.uid, cir_uid()); NEW.origin_copy := coalesce(NEW.origin_copy, (SELECT value FROM meta WHERE key = 'origin_id'));  END IF; RETURN NEW; END $$;


--
-- Name: cir_concat(text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.cir_concat(state text, value text) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT cir_concat(state, value, ',') $$;


--
-- Name: cir_concat(text, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.cir_concat(state text, value text, separator text) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT CASE WHEN value IS NULL THEN state
    WHEN state IS NULL THEN value ELSE state || separator || value END $$;


--
-- Name: cir_int(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.cir_int(value text) RETURNS bigint
    LANGUAGE sql IMMUTABLE
    AS $_$ SELECT CASE WHEN value ~ '^\s*-?[0-9]{1,18}\s*$' THEN value::bigint END $_$;


--
-- Name: cir_now(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.cir_now() RETURNS text
    LANGUAGE sql
    AS $$ SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"+00:00"') $$;


--
-- Name: cir_uid(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.cir_uid() RETURNS text
    LANGUAGE sql
    AS $$ SELECT replace(gen_random_uuid()::text, '-', '') $$;


--
-- Name: image_attributes_identity(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.image_attributes_identity() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN IF NEW.uid IS NULL OR NEW.origin_copy IS NULL THEN NEW.uid := coalesce(NEW.uid, cir_uid()); NEW.origin_copy := coalesce(NEW.origin_copy, (SELECT value FROM meta WHERE key = 'origin_id'));  END IF; RETURN NEW; END $$;


--
-- Name: images_gallery(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.images_gallery() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF OLD.category = NEW.category AND OLD.split = NEW.split THEN RETURN NEW; END IF;
        DELETE FROM gallery_members
        WHERE image_id = OLD.id AND category = OLD.category AND split = OLD.split;
    END IF;
    IF NEW.category <> '' OR NEW.split <> '' THEN
        INSERT INTO gallery_members (image_id, category, split, position)
        VALUES (NEW.id, NEW.category, NEW.split,
                (SELECT coalesce(max(position), -1) + 1 FROM gallery_members
                 WHERE category = NEW.category AND split = NEW.split))
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NEW;
END $$;


--
-- Name: json_extract(text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.json_extract(value text, path text) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT value::jsonb #>> string_to_array(substr(path, 3), '.') $$;


--
-- Name: max(double precision, double precision); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.max(a double precision, b double precision) RETURNS double precision
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT greatest(a, b) $$;


--
-- Name: max(bigint, bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.max(a bigint, b bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT greatest(a, b) $$;


--
-- Name: min(double precision, double precision); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.min(a double precision, b double precision) RETURNS double precision
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT least(a, b) $$;


--
-- Name: min(bigint, bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.min(a bigint, b bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT least(a, b) $$;


--
-- Name: outfit_attributes_identity(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.outfit_attributes_identity() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN IF NEW.uid IS NULL OR NEW.origin_copy IS NULL THEN NEW.uid := coalesce(NEW.uid, cir_uid()); NEW.origin_copy := coalesce(NEW.origin_copy, (SELECT value FROM meta WHERE key = 'origin_id')); END IF; RETURN NEW; END $$;


--
-- Name: outfit_ontology_identity(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.outfit_ontology_identity() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN IF NEW.uid IS NULL OR NEW.origin_copy IS NULL THEN NEW.uid := coalesce(NEW.uid, cir_uid()); NEW.origin_copy := coalesce(NEW.origin_copy, (SELECT value FROM meta WHERE key = 'origin_id')); END IF; RETURN NEW; END $$;


--
-- Name: outfit_pictures_identity(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.outfit_pictures_identity() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN IF NEW.uid IS NULL OR NEW.origin_copy IS NULL THEN NEW.uid := coalesce(NEW.uid, cir_uid()); NEW.origin_copy := coalesce(NEW.origin_copy, (SELECT value FROM meta WHERE key = 'origin_id')); END IF; RETURN NEW; END $$;


--
-- Name: outfit_region_attributes_identity(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.outfit_region_attributes_identity() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN IF NEW.uid IS NULL OR NEW.origin_copy IS NULL THEN NEW.uid := coalesce(NEW.uid, cir_uid()); NEW.origin_copy := coalesce(NEW.origin_copy, (SELECT value FROM meta WHERE key = 'origin_id')); END IF; RETURN NEW; END $$;


--
-- Name: outfit_regions_identity(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.outfit_regions_identity() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN IF NEW.uid IS NULL OR NEW.origin_copy IS NULL THEN NEW.uid := coalesce(NEW.uid, cir_uid()); NEW.origin_copy := coalesce(NEW.origin_copy, (SELECT value FROM meta WHERE key = 'origin_id')); END IF; RETURN NEW; END $$;


--
-- Name: pairs_identity(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pairs_identity() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN IF NEW.uid IS NULL OR NEW.origin_copy IS NULL THEN NEW.uid := coalesce(NEW.uid, cir_uid()); NEW.origin_copy := coalesce(NEW.origin_copy, (SELECT value FROM meta WHERE key = 'origin_id'));  END IF; RETURN NEW; END $$;


--
-- Name: people_identity(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.people_identity() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN IF NEW.uid IS NULL OR NEW.origin_copy IS NULL THEN NEW.uid := coalesce(NEW.uid, cir_uid()); NEW.origin_copy := coalesce(NEW.origin_copy, (SELECT value FROM meta WHERE key = 'origin_id'));  END IF; RETURN NEW; END $$;


--
-- Name: rating_assignments_changed(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.rating_assignments_changed() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN IF (NEW.status IS DISTINCT FROM OLD.status OR NEW.order_key IS DISTINCT FROM OLD.order_key) AND NEW.changed_at IS NOT DISTINCT FROM OLD.changed_at THEN NEW.changed_at := cir_now(); END IF; RETURN NEW; END $$;


--
-- Name: rating_assignments_identity(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.rating_assignments_identity() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN IF NEW.uid IS NULL OR NEW.origin_copy IS NULL THEN NEW.uid := coalesce(NEW.uid, cir_uid()); NEW.origin_copy := coalesce(NEW.origin_copy, (SELECT value FROM meta WHERE key = 'origin_id')); NEW.changed_at := coalesce(NEW.changed_at, cir_now()); END IF; RETURN NEW; END $$;


--
-- Name: ratings_identity(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ratings_identity() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN IF NEW.uid IS NULL OR NEW.origin_copy IS NULL THEN NEW.uid := coalesce(NEW.uid, cir_uid()); NEW.origin_copy := coalesce(NEW.origin_copy, (SELECT value FROM meta WHERE key = 'origin_id'));  END IF; RETURN NEW; END $$;


--
-- Name: retrieval_sessions_identity(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.retrieval_sessions_identity() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN IF NEW.uid IS NULL OR NEW.origin_copy IS NULL THEN NEW.uid := coalesce(NEW.uid, cir_uid()); NEW.origin_copy := coalesce(NEW.origin_copy, (SELECT value FROM meta WHERE key = 'origin_id'));  END IF; RETURN NEW; END $$;


--
-- Name: round(double precision, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.round(value double precision, digits integer) RETURNS double precision
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT round(value::numeric, digits)::float8 $$;


--
-- Name: session_turns_identity(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.session_turns_identity() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN IF NEW.uid IS NULL OR NEW.origin_copy IS NULL THEN NEW.uid := coalesce(NEW.uid, cir_uid()); NEW.origin_copy := coalesce(NEW.origin_copy, (SELECT value FROM meta WHERE key = 'origin_id'));  END IF; RETURN NEW; END $$;


--
-- Name: transaction_turns_changed(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.transaction_turns_changed() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN IF (NEW.text IS DISTINCT FROM OLD.text OR NEW.status IS DISTINCT FROM OLD.status OR NEW.reference_position IS DISTINCT FROM OLD.reference_position) AND NEW.changed_at IS NOT DISTINCT FROM OLD.changed_at THEN NEW.changed_at := cir_now(); END IF; RETURN NEW; END $$;


--
-- Name: transaction_turns_identity(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.transaction_turns_identity() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN IF NEW.uid IS NULL OR NEW.origin_copy IS NULL THEN NEW.uid := coalesce(NEW.uid, cir_uid()); NEW.origin_copy := coalesce(NEW.origin_copy, (SELECT value FROM meta WHERE key = 'origin_id')); NEW.changed_at := coalesce(NEW.changed_at, cir_now()); END IF; RETURN NEW; END $$;


--
-- Name: transactions_identity(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.transactions_identity() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN IF NEW.uid IS NULL OR NEW.origin_copy IS NULL THEN NEW.uid := coalesce(NEW.uid, cir_uid()); NEW.origin_copy := coalesce(NEW.origin_copy, (SELECT value FROM meta WHERE key = 'origin_id'));  END IF; RETURN NEW; END $$;


--
-- Name: group_concat(text); Type: AGGREGATE; Schema: public; Owner: -
--

CREATE AGGREGATE public.group_concat(text) (
    SFUNC = public.cir_concat,
    STYPE = text
);


--
-- Name: group_concat(text, text); Type: AGGREGATE; Schema: public; Owner: -
--

CREATE AGGREGATE public.group_concat(text, text) (
    SFUNC = public.cir_concat,
    STYPE = text
);


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: attribute_vocab; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.attribute_vocab (
    id bigint NOT NULL,
    name text NOT NULL,
    type text NOT NULL,
    synonyms text DEFAULT '[]'::text NOT NULL,
    created_at text NOT NULL,
    uid text,
    origin_copy text,
    changed_at text,
    CONSTRAINT attribute_vocab_type_check CHECK ((type = ANY (ARRAY['texture'::text, 'fabric'::text, 'shape'::text, 'part'::text, 'style'::text, 'color'::text])))
);


--
-- Name: attribute_vocab_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.attribute_vocab ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.attribute_vocab_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: audit_log; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_log (
    id bigint NOT NULL,
    at text NOT NULL,
    actor text NOT NULL,
    action text NOT NULL,
    entity text NOT NULL,
    entity_id text,
    before text,
    after text,
    uid text,
    origin_copy text,
    entity_uid text
);


--
-- Name: audit_log_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.audit_log ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.audit_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: captions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.captions (
    id bigint NOT NULL,
    pair_id bigint NOT NULL,
    "position" bigint DEFAULT 0 NOT NULL,
    text text NOT NULL,
    author_id bigint,
    status text DEFAULT 'submitted'::text NOT NULL,
    flagged bigint DEFAULT 0 NOT NULL,
    reject_reason text,
    reviewer_id bigint,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    reviewed_at text,
    uid text,
    origin_copy text,
    rank bigint,
    gallery_size bigint,
    rank_model text,
    rank_strategy text,
    rank_index_key text,
    rank_text text,
    ranked_at text,
    CONSTRAINT captions_status_check CHECK ((status = ANY (ARRAY['draft'::text, 'submitted'::text, 'accepted'::text, 'rejected'::text])))
);


--
-- Name: captions_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.captions ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.captions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: cir_schema; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.cir_schema (
    version bigint NOT NULL
);


--
-- Name: dialog_sources; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.dialog_sources (
    session_id bigint NOT NULL,
    dataset text NOT NULL,
    "position" bigint NOT NULL
);


--
-- Name: experiment_runs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.experiment_runs (
    id bigint NOT NULL,
    kind text NOT NULL,
    config text NOT NULL,
    summary text NOT NULL,
    ranks text DEFAULT '[]'::text NOT NULL,
    created_at text NOT NULL
);


--
-- Name: experiment_runs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.experiment_runs ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.experiment_runs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: gallery_members; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.gallery_members (
    image_id text NOT NULL,
    category text DEFAULT ''::text NOT NULL,
    split text DEFAULT ''::text NOT NULL,
    "position" bigint NOT NULL
);


--
-- Name: image_attributes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.image_attributes (
    id bigint NOT NULL,
    image_id text NOT NULL,
    attribute_id bigint NOT NULL,
    source text NOT NULL,
    model text DEFAULT ''::text NOT NULL,
    confidence double precision,
    status text DEFAULT 'suggested'::text NOT NULL,
    updated_at text NOT NULL,
    uid text,
    origin_copy text,
    CONSTRAINT image_attributes_source_check CHECK ((source = ANY (ARRAY['text'::text, 'model'::text, 'person'::text]))),
    CONSTRAINT image_attributes_status_check CHECK ((status = ANY (ARRAY['suggested'::text, 'accepted'::text, 'rejected'::text])))
);


--
-- Name: image_attributes_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.image_attributes ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.image_attributes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: images; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.images (
    id text NOT NULL,
    path text NOT NULL,
    content_hash text,
    width bigint,
    height bigint,
    bytes bigint,
    category text DEFAULT ''::text NOT NULL,
    split text DEFAULT ''::text NOT NULL,
    title text DEFAULT ''::text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    source text DEFAULT ''::text NOT NULL,
    missing bigint DEFAULT 0 NOT NULL,
    added_at text NOT NULL
);


--
-- Name: meta; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.meta (
    key text NOT NULL,
    value text NOT NULL
);


--
-- Name: outfit_attributes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.outfit_attributes (
    id bigint NOT NULL,
    image_id text NOT NULL,
    value_id bigint NOT NULL,
    source text NOT NULL,
    model text DEFAULT ''::text NOT NULL,
    confidence double precision,
    status text DEFAULT 'suggested'::text NOT NULL,
    author text DEFAULT ''::text NOT NULL,
    reviewer text DEFAULT ''::text NOT NULL,
    "position" bigint DEFAULT 0 NOT NULL,
    updated_at text NOT NULL,
    uid text,
    origin_copy text,
    CONSTRAINT outfit_attributes_source_check CHECK ((source = ANY (ARRAY['imported'::text, 'person'::text, 'model'::text]))),
    CONSTRAINT outfit_attributes_status_check CHECK ((status = ANY (ARRAY['suggested'::text, 'accepted'::text, 'rejected'::text])))
);


--
-- Name: outfit_attributes_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.outfit_attributes ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.outfit_attributes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: outfit_ontology; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.outfit_ontology (
    id bigint NOT NULL,
    key text NOT NULL,
    kind text NOT NULL,
    name text NOT NULL,
    supercategory text DEFAULT ''::text NOT NULL,
    level bigint,
    taxonomy_id text DEFAULT ''::text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    external_id bigint,
    origin text DEFAULT 'studio'::text NOT NULL,
    raw text,
    "position" bigint DEFAULT 0 NOT NULL,
    uid text,
    origin_copy text,
    CONSTRAINT outfit_ontology_kind_check CHECK ((kind = ANY (ARRAY['category'::text, 'attribute'::text, 'outfit'::text])))
);


--
-- Name: outfit_ontology_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.outfit_ontology ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.outfit_ontology_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: outfit_pictures; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.outfit_pictures (
    image_id text NOT NULL,
    general text DEFAULT ''::text NOT NULL,
    concise text DEFAULT ''::text NOT NULL,
    description_source text DEFAULT 'person'::text NOT NULL,
    dataset text DEFAULT ''::text NOT NULL,
    external_id bigint,
    raw text,
    "position" bigint DEFAULT 0 NOT NULL,
    updated_at text NOT NULL,
    uid text,
    origin_copy text,
    CONSTRAINT outfit_pictures_description_source_check CHECK ((description_source = ANY (ARRAY['imported'::text, 'person'::text, 'model'::text])))
);


--
-- Name: outfit_region_attributes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.outfit_region_attributes (
    id bigint NOT NULL,
    region_id bigint NOT NULL,
    attribute_id bigint NOT NULL,
    source text NOT NULL,
    model text DEFAULT ''::text NOT NULL,
    confidence double precision,
    status text DEFAULT 'suggested'::text NOT NULL,
    author text DEFAULT ''::text NOT NULL,
    reviewer text DEFAULT ''::text NOT NULL,
    "position" bigint DEFAULT 0 NOT NULL,
    updated_at text NOT NULL,
    uid text,
    origin_copy text,
    CONSTRAINT outfit_region_attributes_source_check CHECK ((source = ANY (ARRAY['imported'::text, 'person'::text, 'model'::text]))),
    CONSTRAINT outfit_region_attributes_status_check CHECK ((status = ANY (ARRAY['suggested'::text, 'accepted'::text, 'rejected'::text])))
);


--
-- Name: outfit_region_attributes_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.outfit_region_attributes ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.outfit_region_attributes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: outfit_regions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.outfit_regions (
    id bigint NOT NULL,
    image_id text NOT NULL,
    garment_id bigint,
    role text NOT NULL,
    category_id bigint NOT NULL,
    box text,
    polygon text,
    rle text,
    source text NOT NULL,
    model text DEFAULT ''::text NOT NULL,
    confidence double precision,
    status text DEFAULT 'suggested'::text NOT NULL,
    author text DEFAULT ''::text NOT NULL,
    reviewer text DEFAULT ''::text NOT NULL,
    external_id bigint,
    raw text,
    "position" bigint DEFAULT 0 NOT NULL,
    updated_at text NOT NULL,
    uid text,
    origin_copy text,
    CONSTRAINT outfit_regions_role_check CHECK ((role = ANY (ARRAY['garment'::text, 'part'::text]))),
    CONSTRAINT outfit_regions_source_check CHECK ((source = ANY (ARRAY['imported'::text, 'person'::text, 'model'::text]))),
    CONSTRAINT outfit_regions_status_check CHECK ((status = ANY (ARRAY['suggested'::text, 'accepted'::text, 'rejected'::text])))
);


--
-- Name: outfit_regions_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.outfit_regions ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.outfit_regions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: outfit_sources; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.outfit_sources (
    id bigint NOT NULL,
    dataset text NOT NULL,
    file text NOT NULL,
    header text DEFAULT '{}'::text NOT NULL,
    format text,
    imported_at text NOT NULL
);


--
-- Name: outfit_sources_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.outfit_sources ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.outfit_sources_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: pair_ground_truths; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pair_ground_truths (
    pair_id bigint NOT NULL,
    image_id text NOT NULL,
    "position" bigint NOT NULL
);


--
-- Name: pairs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pairs (
    id bigint NOT NULL,
    reference_id text NOT NULL,
    target_id text,
    category text DEFAULT ''::text NOT NULL,
    split text DEFAULT ''::text NOT NULL,
    method text DEFAULT 'imported'::text NOT NULL,
    score double precision,
    source text DEFAULT ''::text NOT NULL,
    external_key text NOT NULL,
    created_at text NOT NULL,
    extra text DEFAULT '{}'::text NOT NULL,
    uid text,
    origin_copy text,
    CONSTRAINT pairs_method_check CHECK ((method = ANY (ARRAY['imported'::text, 'tfidf'::text, 'embedding'::text, 'manual'::text])))
);


--
-- Name: pairs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.pairs ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.pairs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: people; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.people (
    id bigint NOT NULL,
    name text NOT NULL,
    role text DEFAULT 'annotator'::text NOT NULL,
    created_at text NOT NULL,
    uid text,
    origin_copy text,
    CONSTRAINT people_role_check CHECK ((role = ANY (ARRAY['annotator'::text, 'reviewer'::text, 'rater'::text, 'researcher'::text, 'admin'::text])))
);


--
-- Name: people_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.people ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.people_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: rating_assignments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.rating_assignments (
    id bigint NOT NULL,
    sample text NOT NULL,
    transaction_id bigint NOT NULL,
    turn_index bigint NOT NULL,
    rater_id bigint NOT NULL,
    order_key bigint NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    uid text,
    origin_copy text,
    changed_at text,
    CONSTRAINT rating_assignments_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'done'::text, 'skipped'::text, 'flagged'::text])))
);


--
-- Name: rating_assignments_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.rating_assignments ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.rating_assignments_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: ratings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.ratings (
    assignment_id bigint NOT NULL,
    accuracy bigint,
    historical_awareness bigint,
    granularity bigint,
    consistency bigint,
    coverage bigint,
    note text DEFAULT ''::text NOT NULL,
    updated_at text NOT NULL,
    uid text,
    origin_copy text,
    CONSTRAINT ratings_accuracy_check CHECK (((accuracy >= 1) AND (accuracy <= 5))),
    CONSTRAINT ratings_consistency_check CHECK (((consistency >= 1) AND (consistency <= 5))),
    CONSTRAINT ratings_coverage_check CHECK (((coverage >= 1) AND (coverage <= 5))),
    CONSTRAINT ratings_granularity_check CHECK (((granularity >= 1) AND (granularity <= 5))),
    CONSTRAINT ratings_historical_awareness_check CHECK (((historical_awareness >= 1) AND (historical_awareness <= 5)))
);


--
-- Name: retrieval_sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.retrieval_sessions (
    id bigint NOT NULL,
    mode text NOT NULL,
    strategy text NOT NULL,
    model text NOT NULL,
    target_id text,
    person_id bigint,
    title text DEFAULT ''::text NOT NULL,
    created_at text NOT NULL,
    uid text,
    origin_copy text,
    CONSTRAINT retrieval_sessions_mode_check CHECK ((mode = ANY (ARRAY['composed'::text, 'chat'::text])))
);


--
-- Name: retrieval_sessions_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.retrieval_sessions ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.retrieval_sessions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: server_edits; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.server_edits (
    uid text NOT NULL,
    holder text NOT NULL,
    status bigint NOT NULL,
    answer text NOT NULL,
    applied_at text NOT NULL
);


--
-- Name: server_leases; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.server_leases (
    id bigint NOT NULL,
    kind text NOT NULL,
    item_id bigint NOT NULL,
    holder text NOT NULL,
    expires_at double precision NOT NULL,
    created_at text NOT NULL,
    item_key text DEFAULT ''::text NOT NULL
);


--
-- Name: server_leases_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.server_leases ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.server_leases_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: server_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.server_tokens (
    id bigint NOT NULL,
    name text NOT NULL,
    role text NOT NULL,
    salt text NOT NULL,
    digest text NOT NULL,
    created_at text NOT NULL,
    revoked_at text,
    CONSTRAINT server_tokens_role_check CHECK ((role = ANY (ARRAY['annotator'::text, 'reviewer'::text, 'rater'::text, 'coordinator'::text])))
);


--
-- Name: server_tokens_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.server_tokens ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.server_tokens_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: session_turns; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.session_turns (
    id bigint NOT NULL,
    session_id bigint NOT NULL,
    turn_index bigint NOT NULL,
    kind text NOT NULL,
    reference_id text,
    text text DEFAULT ''::text NOT NULL,
    question text,
    answer text,
    results text DEFAULT '[]'::text NOT NULL,
    target_rank bigint,
    timings text DEFAULT '{}'::text NOT NULL,
    created_at text NOT NULL,
    uid text,
    origin_copy text,
    CONSTRAINT session_turns_kind_check CHECK ((kind = ANY (ARRAY['composed'::text, 'rollback'::text, 'combination'::text, 'chat'::text])))
);


--
-- Name: session_turns_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.session_turns ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.session_turns_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: source_formats; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.source_formats (
    source text NOT NULL,
    file text NOT NULL,
    format text NOT NULL
);


--
-- Name: team_assignments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.team_assignments (
    id bigint NOT NULL,
    person_id bigint NOT NULL,
    kind text NOT NULL,
    item text NOT NULL,
    batch text DEFAULT ''::text NOT NULL,
    assigned_by text DEFAULT ''::text NOT NULL,
    assigned_at text NOT NULL,
    CONSTRAINT team_assignments_kind_check CHECK ((kind = ANY (ARRAY['caption'::text, 'review'::text, 'attributes'::text])))
);


--
-- Name: team_assignments_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.team_assignments ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.team_assignments_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: team_base; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.team_base (
    uid text NOT NULL,
    kind text NOT NULL,
    hash text NOT NULL
);


--
-- Name: team_merged; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.team_merged (
    package_id text NOT NULL,
    uid text NOT NULL,
    hash text NOT NULL
);


--
-- Name: team_packages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.team_packages (
    package_id text NOT NULL,
    person_id bigint NOT NULL,
    path text NOT NULL,
    created_at text NOT NULL,
    handed_out text DEFAULT '{}'::text NOT NULL,
    returned_at text,
    merges bigint DEFAULT 0 NOT NULL,
    last_report text DEFAULT '{}'::text NOT NULL
);


--
-- Name: transaction_images; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.transaction_images (
    transaction_id bigint NOT NULL,
    "position" bigint NOT NULL,
    image_id text NOT NULL,
    caption text DEFAULT ''::text NOT NULL
);


--
-- Name: transaction_layouts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.transaction_layouts (
    transaction_id bigint NOT NULL,
    keys text DEFAULT '[]'::text NOT NULL,
    image_refs text DEFAULT '[]'::text NOT NULL
);


--
-- Name: transaction_turns; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.transaction_turns (
    transaction_id bigint NOT NULL,
    turn_index bigint NOT NULL,
    reference_position bigint NOT NULL,
    text text NOT NULL,
    status text DEFAULT 'accepted'::text NOT NULL,
    uid text,
    origin_copy text,
    changed_at text,
    CONSTRAINT transaction_turns_status_check CHECK ((status = ANY (ARRAY['draft'::text, 'accepted'::text])))
);


--
-- Name: transactions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.transactions (
    id bigint NOT NULL,
    dataset text NOT NULL,
    external_key text NOT NULL,
    category text DEFAULT ''::text NOT NULL,
    origin text DEFAULT 'imported'::text NOT NULL,
    created_at text NOT NULL,
    uid text,
    origin_copy text,
    CONSTRAINT transactions_origin_check CHECK ((origin = ANY (ARRAY['imported'::text, 'session'::text, 'simulated'::text, 'built'::text])))
);


--
-- Name: transactions_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.transactions ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.transactions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Data for Name: attribute_vocab; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: audit_log; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.audit_log VALUES (1, '2026-11-27T14:51:21.200+00:00', 'fashioniq', 'import', 'dataset', 'fashioniq', NULL, '{"captions": 6, "dataset": "Fashion IQ", "images": 6, "pairs": 3, "skipped": 0}', 'b287f6e86e664cabbdb5be6681cd5a31', '8a970d37e9634e43b5f10f8b5bb372c2', NULL);


--
-- Data for Name: captions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.captions VALUES (1, 1, 0, 'is red', 1, 'submitted', 0, NULL, NULL, '2026-11-27T14:51:21.048+00:00', '2026-11-27T14:51:21.048+00:00', NULL, '4bcb574f33a249be983f8bf7c0f1d60f', '8a970d37e9634e43b5f10f8b5bb372c2', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO public.captions VALUES (2, 1, 1, 'longer', 1, 'submitted', 0, NULL, NULL, '2026-11-27T14:51:21.048+00:00', '2026-11-27T14:51:21.048+00:00', NULL, 'f41c0013f2a94ce0bf5001353a2c2185', '8a970d37e9634e43b5f10f8b5bb372c2', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO public.captions VALUES (3, 2, 0, 'is blue', 1, 'submitted', 0, NULL, NULL, '2026-11-27T14:51:21.048+00:00', '2026-11-27T14:51:21.048+00:00', NULL, 'df86b1dc54b143fe898da6d83d619846', '8a970d37e9634e43b5f10f8b5bb372c2', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO public.captions VALUES (4, 2, 1, 'has a print', 1, 'submitted', 0, NULL, NULL, '2026-11-27T14:51:21.048+00:00', '2026-11-27T14:51:21.048+00:00', NULL, 'b3370d4943334012adb02d68629c6099', '8a970d37e9634e43b5f10f8b5bb372c2', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO public.captions VALUES (5, 3, 0, 'no sleeves', 1, 'submitted', 0, NULL, NULL, '2026-11-27T14:51:21.048+00:00', '2026-11-27T14:51:21.048+00:00', NULL, 'e463da541c6b4bd88d20d0e27a7171ae', '8a970d37e9634e43b5f10f8b5bb372c2', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO public.captions VALUES (6, 3, 1, 'darker', 1, 'submitted', 0, NULL, NULL, '2026-11-27T14:51:21.048+00:00', '2026-11-27T14:51:21.048+00:00', NULL, '17a56f1afd764ef4aad4e5ac3d7459f7', '8a970d37e9634e43b5f10f8b5bb372c2', NULL, NULL, NULL, NULL, NULL, NULL, NULL);


--
-- Data for Name: cir_schema; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.cir_schema VALUES (11);


--
-- Data for Name: dialog_sources; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: experiment_runs; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: gallery_members; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.gallery_members VALUES ('D3', 'dress', 'val', 0);
INSERT INTO public.gallery_members VALUES ('D1', 'dress', 'val', 1);
INSERT INTO public.gallery_members VALUES ('D2', 'dress', 'val', 2);
INSERT INTO public.gallery_members VALUES ('SHARED', 'dress', 'val', 3);
INSERT INTO public.gallery_members VALUES ('T2', 'toptee', 'val', 0);
INSERT INTO public.gallery_members VALUES ('SHARED', 'toptee', 'val', 1);
INSERT INTO public.gallery_members VALUES ('T1', 'toptee', 'val', 2);
INSERT INTO public.gallery_members VALUES ('A9', 'dress', 'val', 4);
INSERT INTO public.gallery_members VALUES ('A8', 'dress', 'val', 5);


--
-- Data for Name: image_attributes; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: images; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.images VALUES ('D3', 'D3.jpg', NULL, NULL, NULL, NULL, 'dress', 'val', '', '', 'fashioniq', 1, '2026-11-27T14:51:21.048+00:00');
INSERT INTO public.images VALUES ('D2', 'D2.jpg', NULL, NULL, NULL, NULL, 'dress', 'val', '', '', 'fashioniq', 1, '2026-11-27T14:51:21.048+00:00');
INSERT INTO public.images VALUES ('SHARED', 'SHARED.jpg', NULL, NULL, NULL, NULL, 'dress', 'val', '', '', 'fashioniq', 1, '2026-11-27T14:51:21.048+00:00');
INSERT INTO public.images VALUES ('T1', 'T1.jpg', NULL, NULL, NULL, NULL, 'toptee', 'val', '', '', 'fashioniq', 1, '2026-11-27T14:51:21.048+00:00');
INSERT INTO public.images VALUES ('A9', 'late/A9.jpg', NULL, NULL, NULL, NULL, 'dress', 'val', '', '', '', 0, '2026-11-27T14:51:21.216+00:00');
INSERT INTO public.images VALUES ('A8', 'late/A8.jpg', NULL, NULL, NULL, NULL, 'dress', 'val', '', '', '', 0, '2026-11-27T14:51:21.216+00:00');
INSERT INTO public.images VALUES ('D1', 'D1.jpg', NULL, NULL, NULL, NULL, 'dress', 'val', '', '', 'fashioniq', 1, '2026-11-27T14:51:21.048+00:00');
INSERT INTO public.images VALUES ('T2', 'T2.jpg', NULL, NULL, NULL, NULL, 'toptee', 'val', '', '', 'fashioniq', 1, '2026-11-27T14:51:21.048+00:00');


--
-- Data for Name: meta; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.meta VALUES ('project_id', '514da814ac084710af0e722c863f7d3d');
INSERT INTO public.meta VALUES ('origin_id', '8a970d37e9634e43b5f10f8b5bb372c2');
INSERT INTO public.meta VALUES ('name', 'Made at schema 11');
INSERT INTO public.meta VALUES ('image_root', 'images');
INSERT INTO public.meta VALUES ('local_path', '/tmp/tmpz95zh4qn/project.pg');
INSERT INTO public.meta VALUES ('cache_dir', 'project.cache');
INSERT INTO public.meta VALUES ('created_at', '2026-11-27T14:51:20.974+00:00');


--
-- Data for Name: outfit_attributes; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: outfit_ontology; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: outfit_pictures; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: outfit_region_attributes; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: outfit_regions; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: outfit_sources; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: pair_ground_truths; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: pairs; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.pairs VALUES (1, 'D3', 'D1', 'dress', 'val', 'imported', NULL, 'fashioniq', 'dress.val:D3>D1', '2026-11-27T14:51:21.048+00:00', '{}', '1fbb2b04ab974dc1a4841e21a1d7e391', '8a970d37e9634e43b5f10f8b5bb372c2');
INSERT INTO public.pairs VALUES (2, 'D2', 'SHARED', 'dress', 'val', 'imported', NULL, 'fashioniq', 'dress.val:D2>SHARED', '2026-11-27T14:51:21.048+00:00', '{}', '9352b5e85c3a4f8780fc51ee440dcad5', '8a970d37e9634e43b5f10f8b5bb372c2');
INSERT INTO public.pairs VALUES (3, 'T2', 'T1', 'toptee', 'val', 'imported', NULL, 'fashioniq', 'toptee.val:T2>T1', '2026-11-27T14:51:21.048+00:00', '{}', '626d9174a2ac4374bcb389409b40dc5f', '8a970d37e9634e43b5f10f8b5bb372c2');


--
-- Data for Name: people; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.people VALUES (1, 'fashioniq', 'annotator', '2026-11-27T14:51:21.164+00:00', 'c51d183138f444d39e37195b166336e3', '8a970d37e9634e43b5f10f8b5bb372c2');
INSERT INTO public.people VALUES (2, 'ann', 'annotator', '2026-11-27T14:51:21.224+00:00', 'b40670b9566f49e4a3008988bdf462c9', '8a970d37e9634e43b5f10f8b5bb372c2');


--
-- Data for Name: rating_assignments; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: ratings; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: retrieval_sessions; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: server_edits; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: server_leases; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: server_tokens; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: session_turns; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: source_formats; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.source_formats VALUES ('fashioniq', 'captions/cap.dress.val.json', '{"indent": 4, "separators": [",", ": "], "ensure_ascii": true, "newline": false, "keys": ["target", "candidate", "captions"]}');
INSERT INTO public.source_formats VALUES ('fashioniq', 'captions/cap.toptee.val.json', '{"indent": 4, "separators": [",", ": "], "ensure_ascii": true, "newline": false, "keys": ["target", "candidate", "captions"]}');
INSERT INTO public.source_formats VALUES ('fashioniq', 'image_splits/split.dress.val.json', '{"indent": 4, "separators": [",", ": "], "ensure_ascii": true, "newline": false, "keys": []}');
INSERT INTO public.source_formats VALUES ('fashioniq', 'image_splits/split.toptee.val.json', '{"indent": 4, "separators": [",", ": "], "ensure_ascii": true, "newline": false, "keys": []}');


--
-- Data for Name: team_assignments; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: team_base; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: team_merged; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: team_packages; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: transaction_images; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: transaction_layouts; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: transaction_turns; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: transactions; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Name: attribute_vocab_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.attribute_vocab_id_seq', 1, false);


--
-- Name: audit_log_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.audit_log_id_seq', 1, true);


--
-- Name: captions_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.captions_id_seq', 6, true);


--
-- Name: experiment_runs_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.experiment_runs_id_seq', 1, false);


--
-- Name: image_attributes_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.image_attributes_id_seq', 1, false);


--
-- Name: outfit_attributes_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.outfit_attributes_id_seq', 1, false);


--
-- Name: outfit_ontology_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.outfit_ontology_id_seq', 1, false);


--
-- Name: outfit_region_attributes_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.outfit_region_attributes_id_seq', 1, false);


--
-- Name: outfit_regions_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.outfit_regions_id_seq', 1, false);


--
-- Name: outfit_sources_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.outfit_sources_id_seq', 1, false);


--
-- Name: pairs_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.pairs_id_seq', 3, true);


--
-- Name: people_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.people_id_seq', 2, true);


--
-- Name: rating_assignments_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.rating_assignments_id_seq', 1, false);


--
-- Name: retrieval_sessions_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.retrieval_sessions_id_seq', 1, false);


--
-- Name: server_leases_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.server_leases_id_seq', 1, false);


--
-- Name: server_tokens_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.server_tokens_id_seq', 1, false);


--
-- Name: session_turns_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.session_turns_id_seq', 1, false);


--
-- Name: team_assignments_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.team_assignments_id_seq', 1, false);


--
-- Name: transactions_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.transactions_id_seq', 1, false);


--
-- Name: attribute_vocab attribute_vocab_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.attribute_vocab
    ADD CONSTRAINT attribute_vocab_name_key UNIQUE (name);


--
-- Name: attribute_vocab attribute_vocab_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.attribute_vocab
    ADD CONSTRAINT attribute_vocab_pkey PRIMARY KEY (id);


--
-- Name: audit_log audit_log_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_log
    ADD CONSTRAINT audit_log_pkey PRIMARY KEY (id);


--
-- Name: captions captions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.captions
    ADD CONSTRAINT captions_pkey PRIMARY KEY (id);


--
-- Name: dialog_sources dialog_sources_dataset_position_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.dialog_sources
    ADD CONSTRAINT dialog_sources_dataset_position_key UNIQUE (dataset, "position");


--
-- Name: dialog_sources dialog_sources_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.dialog_sources
    ADD CONSTRAINT dialog_sources_pkey PRIMARY KEY (session_id);


--
-- Name: experiment_runs experiment_runs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.experiment_runs
    ADD CONSTRAINT experiment_runs_pkey PRIMARY KEY (id);


--
-- Name: gallery_members gallery_members_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.gallery_members
    ADD CONSTRAINT gallery_members_pkey PRIMARY KEY (category, split, image_id);


--
-- Name: image_attributes image_attributes_image_id_attribute_id_source_model_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.image_attributes
    ADD CONSTRAINT image_attributes_image_id_attribute_id_source_model_key UNIQUE (image_id, attribute_id, source, model);


--
-- Name: image_attributes image_attributes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.image_attributes
    ADD CONSTRAINT image_attributes_pkey PRIMARY KEY (id);


--
-- Name: images images_path_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.images
    ADD CONSTRAINT images_path_key UNIQUE (path);


--
-- Name: images images_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.images
    ADD CONSTRAINT images_pkey PRIMARY KEY (id);


--
-- Name: meta meta_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.meta
    ADD CONSTRAINT meta_pkey PRIMARY KEY (key);


--
-- Name: outfit_attributes outfit_attributes_image_id_value_id_source_model_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outfit_attributes
    ADD CONSTRAINT outfit_attributes_image_id_value_id_source_model_key UNIQUE (image_id, value_id, source, model);


--
-- Name: outfit_attributes outfit_attributes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outfit_attributes
    ADD CONSTRAINT outfit_attributes_pkey PRIMARY KEY (id);


--
-- Name: outfit_ontology outfit_ontology_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outfit_ontology
    ADD CONSTRAINT outfit_ontology_key_key UNIQUE (key);


--
-- Name: outfit_ontology outfit_ontology_kind_supercategory_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outfit_ontology
    ADD CONSTRAINT outfit_ontology_kind_supercategory_name_key UNIQUE (kind, supercategory, name);


--
-- Name: outfit_ontology outfit_ontology_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outfit_ontology
    ADD CONSTRAINT outfit_ontology_pkey PRIMARY KEY (id);


--
-- Name: outfit_pictures outfit_pictures_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outfit_pictures
    ADD CONSTRAINT outfit_pictures_pkey PRIMARY KEY (image_id);


--
-- Name: outfit_region_attributes outfit_region_attributes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outfit_region_attributes
    ADD CONSTRAINT outfit_region_attributes_pkey PRIMARY KEY (id);


--
-- Name: outfit_region_attributes outfit_region_attributes_region_id_attribute_id_source_mode_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outfit_region_attributes
    ADD CONSTRAINT outfit_region_attributes_region_id_attribute_id_source_mode_key UNIQUE (region_id, attribute_id, source, model);


--
-- Name: outfit_regions outfit_regions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outfit_regions
    ADD CONSTRAINT outfit_regions_pkey PRIMARY KEY (id);


--
-- Name: outfit_sources outfit_sources_dataset_file_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outfit_sources
    ADD CONSTRAINT outfit_sources_dataset_file_key UNIQUE (dataset, file);


--
-- Name: outfit_sources outfit_sources_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outfit_sources
    ADD CONSTRAINT outfit_sources_pkey PRIMARY KEY (id);


--
-- Name: pair_ground_truths pair_ground_truths_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pair_ground_truths
    ADD CONSTRAINT pair_ground_truths_pkey PRIMARY KEY (pair_id, image_id);


--
-- Name: pairs pairs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pairs
    ADD CONSTRAINT pairs_pkey PRIMARY KEY (id);


--
-- Name: pairs pairs_source_external_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pairs
    ADD CONSTRAINT pairs_source_external_key_key UNIQUE (source, external_key);


--
-- Name: people people_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.people
    ADD CONSTRAINT people_name_key UNIQUE (name);


--
-- Name: people people_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.people
    ADD CONSTRAINT people_pkey PRIMARY KEY (id);


--
-- Name: rating_assignments rating_assignments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rating_assignments
    ADD CONSTRAINT rating_assignments_pkey PRIMARY KEY (id);


--
-- Name: rating_assignments rating_assignments_sample_transaction_id_turn_index_rater_i_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rating_assignments
    ADD CONSTRAINT rating_assignments_sample_transaction_id_turn_index_rater_i_key UNIQUE (sample, transaction_id, turn_index, rater_id);


--
-- Name: ratings ratings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ratings
    ADD CONSTRAINT ratings_pkey PRIMARY KEY (assignment_id);


--
-- Name: retrieval_sessions retrieval_sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.retrieval_sessions
    ADD CONSTRAINT retrieval_sessions_pkey PRIMARY KEY (id);


--
-- Name: server_edits server_edits_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.server_edits
    ADD CONSTRAINT server_edits_pkey PRIMARY KEY (uid);


--
-- Name: server_leases server_leases_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.server_leases
    ADD CONSTRAINT server_leases_pkey PRIMARY KEY (id);


--
-- Name: server_tokens server_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.server_tokens
    ADD CONSTRAINT server_tokens_pkey PRIMARY KEY (id);


--
-- Name: session_turns session_turns_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.session_turns
    ADD CONSTRAINT session_turns_pkey PRIMARY KEY (id);


--
-- Name: session_turns session_turns_session_id_turn_index_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.session_turns
    ADD CONSTRAINT session_turns_session_id_turn_index_key UNIQUE (session_id, turn_index);


--
-- Name: source_formats source_formats_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.source_formats
    ADD CONSTRAINT source_formats_pkey PRIMARY KEY (source, file);


--
-- Name: team_assignments team_assignments_kind_item_person_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_assignments
    ADD CONSTRAINT team_assignments_kind_item_person_id_key UNIQUE (kind, item, person_id);


--
-- Name: team_assignments team_assignments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_assignments
    ADD CONSTRAINT team_assignments_pkey PRIMARY KEY (id);


--
-- Name: team_base team_base_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_base
    ADD CONSTRAINT team_base_pkey PRIMARY KEY (uid);


--
-- Name: team_merged team_merged_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_merged
    ADD CONSTRAINT team_merged_pkey PRIMARY KEY (package_id, uid);


--
-- Name: team_packages team_packages_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_packages
    ADD CONSTRAINT team_packages_pkey PRIMARY KEY (package_id);


--
-- Name: transaction_images transaction_images_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transaction_images
    ADD CONSTRAINT transaction_images_pkey PRIMARY KEY (transaction_id, "position");


--
-- Name: transaction_layouts transaction_layouts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transaction_layouts
    ADD CONSTRAINT transaction_layouts_pkey PRIMARY KEY (transaction_id);


--
-- Name: transaction_turns transaction_turns_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transaction_turns
    ADD CONSTRAINT transaction_turns_pkey PRIMARY KEY (transaction_id, turn_index);


--
-- Name: transactions transactions_dataset_external_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transactions
    ADD CONSTRAINT transactions_dataset_external_key_key UNIQUE (dataset, external_key);


--
-- Name: transactions transactions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transactions
    ADD CONSTRAINT transactions_pkey PRIMARY KEY (id);


--
-- Name: attribute_vocab_uid; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX attribute_vocab_uid ON public.attribute_vocab USING btree (uid);


--
-- Name: audit_entity; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_entity ON public.audit_log USING btree (entity, entity_id);


--
-- Name: audit_entity_uid; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_entity_uid ON public.audit_log USING btree (entity_uid);


--
-- Name: audit_log_uid; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX audit_log_uid ON public.audit_log USING btree (uid);


--
-- Name: audit_origin_copy; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_origin_copy ON public.audit_log USING btree (origin_copy);


--
-- Name: captions_one_draft; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX captions_one_draft ON public.captions USING btree (pair_id, author_id) WHERE (status = 'draft'::text);


--
-- Name: captions_pair; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX captions_pair ON public.captions USING btree (pair_id);


--
-- Name: captions_uid; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX captions_uid ON public.captions USING btree (uid);


--
-- Name: gallery_members_image; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX gallery_members_image ON public.gallery_members USING btree (image_id);


--
-- Name: gallery_members_order; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX gallery_members_order ON public.gallery_members USING btree (category, split, "position");


--
-- Name: image_attributes_attribute; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX image_attributes_attribute ON public.image_attributes USING btree (attribute_id, status);


--
-- Name: image_attributes_uid; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX image_attributes_uid ON public.image_attributes USING btree (uid);


--
-- Name: images_category_split; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX images_category_split ON public.images USING btree (category, split);


--
-- Name: images_content_hash; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX images_content_hash ON public.images USING btree (content_hash);


--
-- Name: outfit_attributes_uid; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX outfit_attributes_uid ON public.outfit_attributes USING btree (uid);


--
-- Name: outfit_ontology_external; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX outfit_ontology_external ON public.outfit_ontology USING btree (kind, external_id) WHERE (external_id IS NOT NULL);


--
-- Name: outfit_ontology_uid; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX outfit_ontology_uid ON public.outfit_ontology USING btree (uid);


--
-- Name: outfit_pictures_external; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX outfit_pictures_external ON public.outfit_pictures USING btree (dataset, external_id) WHERE (external_id IS NOT NULL);


--
-- Name: outfit_pictures_uid; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX outfit_pictures_uid ON public.outfit_pictures USING btree (uid);


--
-- Name: outfit_region_attributes_uid; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX outfit_region_attributes_uid ON public.outfit_region_attributes USING btree (uid);


--
-- Name: outfit_regions_garment; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX outfit_regions_garment ON public.outfit_regions USING btree (garment_id);


--
-- Name: outfit_regions_image; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX outfit_regions_image ON public.outfit_regions USING btree (image_id, "position");


--
-- Name: outfit_regions_uid; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX outfit_regions_uid ON public.outfit_regions USING btree (uid);


--
-- Name: pair_ground_truths_image; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pair_ground_truths_image ON public.pair_ground_truths USING btree (image_id);


--
-- Name: pairs_category_split; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pairs_category_split ON public.pairs USING btree (category, split);


--
-- Name: pairs_reference; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pairs_reference ON public.pairs USING btree (reference_id);


--
-- Name: pairs_target; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pairs_target ON public.pairs USING btree (target_id);


--
-- Name: pairs_uid; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX pairs_uid ON public.pairs USING btree (uid);


--
-- Name: people_uid; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX people_uid ON public.people USING btree (uid);


--
-- Name: rating_assignments_uid; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX rating_assignments_uid ON public.rating_assignments USING btree (uid);


--
-- Name: ratings_uid; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX ratings_uid ON public.ratings USING btree (uid);


--
-- Name: retrieval_sessions_uid; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX retrieval_sessions_uid ON public.retrieval_sessions USING btree (uid);


--
-- Name: server_leases_holder; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX server_leases_holder ON public.server_leases USING btree (holder);


--
-- Name: server_leases_item; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX server_leases_item ON public.server_leases USING btree (kind, item_id);


--
-- Name: server_leases_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX server_leases_key ON public.server_leases USING btree (kind, item_key);


--
-- Name: server_tokens_name; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX server_tokens_name ON public.server_tokens USING btree (name);


--
-- Name: session_turns_uid; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX session_turns_uid ON public.session_turns USING btree (uid);


--
-- Name: team_assignments_person; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX team_assignments_person ON public.team_assignments USING btree (person_id, kind);


--
-- Name: transaction_turns_uid; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX transaction_turns_uid ON public.transaction_turns USING btree (uid);


--
-- Name: transactions_uid; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX transactions_uid ON public.transactions USING btree (uid);


--
-- Name: attribute_vocab attribute_vocab_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER attribute_vocab_changed BEFORE UPDATE ON public.attribute_vocab FOR EACH ROW EXECUTE FUNCTION public.attribute_vocab_changed();


--
-- Name: attribute_vocab attribute_vocab_identity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER attribute_vocab_identity BEFORE INSERT ON public.attribute_vocab FOR EACH ROW EXECUTE FUNCTION public.attribute_vocab_identity();


--
-- Name: audit_log audit_log_identity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER audit_log_identity BEFORE INSERT ON public.audit_log FOR EACH ROW EXECUTE FUNCTION public.audit_log_identity();


--
-- Name: captions captions_identity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER captions_identity BEFORE INSERT ON public.captions FOR EACH ROW EXECUTE FUNCTION public.captions_identity();


--
-- Name: image_attributes image_attributes_identity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER image_attributes_identity BEFORE INSERT ON public.image_attributes FOR EACH ROW EXECUTE FUNCTION public.image_attributes_identity();


--
-- Name: images images_gallery_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER images_gallery_insert AFTER INSERT ON public.images FOR EACH ROW EXECUTE FUNCTION public.images_gallery();


--
-- Name: images images_gallery_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER images_gallery_update AFTER UPDATE OF category, split ON public.images FOR EACH ROW EXECUTE FUNCTION public.images_gallery();


--
-- Name: outfit_attributes outfit_attributes_identity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER outfit_attributes_identity BEFORE INSERT ON public.outfit_attributes FOR EACH ROW EXECUTE FUNCTION public.outfit_attributes_identity();


--
-- Name: outfit_ontology outfit_ontology_identity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER outfit_ontology_identity BEFORE INSERT ON public.outfit_ontology FOR EACH ROW EXECUTE FUNCTION public.outfit_ontology_identity();


--
-- Name: outfit_pictures outfit_pictures_identity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER outfit_pictures_identity BEFORE INSERT ON public.outfit_pictures FOR EACH ROW EXECUTE FUNCTION public.outfit_pictures_identity();


--
-- Name: outfit_region_attributes outfit_region_attributes_identity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER outfit_region_attributes_identity BEFORE INSERT ON public.outfit_region_attributes FOR EACH ROW EXECUTE FUNCTION public.outfit_region_attributes_identity();


--
-- Name: outfit_regions outfit_regions_identity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER outfit_regions_identity BEFORE INSERT ON public.outfit_regions FOR EACH ROW EXECUTE FUNCTION public.outfit_regions_identity();


--
-- Name: pairs pairs_identity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER pairs_identity BEFORE INSERT ON public.pairs FOR EACH ROW EXECUTE FUNCTION public.pairs_identity();


--
-- Name: people people_identity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER people_identity BEFORE INSERT ON public.people FOR EACH ROW EXECUTE FUNCTION public.people_identity();


--
-- Name: rating_assignments rating_assignments_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER rating_assignments_changed BEFORE UPDATE ON public.rating_assignments FOR EACH ROW EXECUTE FUNCTION public.rating_assignments_changed();


--
-- Name: rating_assignments rating_assignments_identity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER rating_assignments_identity BEFORE INSERT ON public.rating_assignments FOR EACH ROW EXECUTE FUNCTION public.rating_assignments_identity();


--
-- Name: ratings ratings_identity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER ratings_identity BEFORE INSERT ON public.ratings FOR EACH ROW EXECUTE FUNCTION public.ratings_identity();


--
-- Name: retrieval_sessions retrieval_sessions_identity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER retrieval_sessions_identity BEFORE INSERT ON public.retrieval_sessions FOR EACH ROW EXECUTE FUNCTION public.retrieval_sessions_identity();


--
-- Name: session_turns session_turns_identity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER session_turns_identity BEFORE INSERT ON public.session_turns FOR EACH ROW EXECUTE FUNCTION public.session_turns_identity();


--
-- Name: transaction_turns transaction_turns_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER transaction_turns_changed BEFORE UPDATE ON public.transaction_turns FOR EACH ROW EXECUTE FUNCTION public.transaction_turns_changed();


--
-- Name: transaction_turns transaction_turns_identity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER transaction_turns_identity BEFORE INSERT ON public.transaction_turns FOR EACH ROW EXECUTE FUNCTION public.transaction_turns_identity();


--
-- Name: transactions transactions_identity; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER transactions_identity BEFORE INSERT ON public.transactions FOR EACH ROW EXECUTE FUNCTION public.transactions_identity();


--
-- Name: captions captions_author_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.captions
    ADD CONSTRAINT captions_author_id_fkey FOREIGN KEY (author_id) REFERENCES public.people(id);


--
-- Name: captions captions_pair_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.captions
    ADD CONSTRAINT captions_pair_id_fkey FOREIGN KEY (pair_id) REFERENCES public.pairs(id) ON DELETE CASCADE;


--
-- Name: captions captions_reviewer_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.captions
    ADD CONSTRAINT captions_reviewer_id_fkey FOREIGN KEY (reviewer_id) REFERENCES public.people(id);


--
-- Name: dialog_sources dialog_sources_session_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.dialog_sources
    ADD CONSTRAINT dialog_sources_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.retrieval_sessions(id) ON DELETE CASCADE;


--
-- Name: gallery_members gallery_members_image_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.gallery_members
    ADD CONSTRAINT gallery_members_image_id_fkey FOREIGN KEY (image_id) REFERENCES public.images(id) ON DELETE CASCADE;


--
-- Name: image_attributes image_attributes_attribute_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.image_attributes
    ADD CONSTRAINT image_attributes_attribute_id_fkey FOREIGN KEY (attribute_id) REFERENCES public.attribute_vocab(id) ON DELETE CASCADE;


--
-- Name: image_attributes image_attributes_image_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.image_attributes
    ADD CONSTRAINT image_attributes_image_id_fkey FOREIGN KEY (image_id) REFERENCES public.images(id) ON DELETE CASCADE;


--
-- Name: outfit_attributes outfit_attributes_image_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outfit_attributes
    ADD CONSTRAINT outfit_attributes_image_id_fkey FOREIGN KEY (image_id) REFERENCES public.outfit_pictures(image_id) ON DELETE CASCADE;


--
-- Name: outfit_attributes outfit_attributes_value_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outfit_attributes
    ADD CONSTRAINT outfit_attributes_value_id_fkey FOREIGN KEY (value_id) REFERENCES public.outfit_ontology(id);


--
-- Name: outfit_pictures outfit_pictures_image_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outfit_pictures
    ADD CONSTRAINT outfit_pictures_image_id_fkey FOREIGN KEY (image_id) REFERENCES public.images(id) ON DELETE CASCADE;


--
-- Name: outfit_region_attributes outfit_region_attributes_attribute_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outfit_region_attributes
    ADD CONSTRAINT outfit_region_attributes_attribute_id_fkey FOREIGN KEY (attribute_id) REFERENCES public.outfit_ontology(id);


--
-- Name: outfit_region_attributes outfit_region_attributes_region_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outfit_region_attributes
    ADD CONSTRAINT outfit_region_attributes_region_id_fkey FOREIGN KEY (region_id) REFERENCES public.outfit_regions(id) ON DELETE CASCADE;


--
-- Name: outfit_regions outfit_regions_category_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outfit_regions
    ADD CONSTRAINT outfit_regions_category_id_fkey FOREIGN KEY (category_id) REFERENCES public.outfit_ontology(id);


--
-- Name: outfit_regions outfit_regions_garment_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outfit_regions
    ADD CONSTRAINT outfit_regions_garment_id_fkey FOREIGN KEY (garment_id) REFERENCES public.outfit_regions(id) ON DELETE SET NULL;


--
-- Name: outfit_regions outfit_regions_image_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outfit_regions
    ADD CONSTRAINT outfit_regions_image_id_fkey FOREIGN KEY (image_id) REFERENCES public.outfit_pictures(image_id) ON DELETE CASCADE;


--
-- Name: pair_ground_truths pair_ground_truths_pair_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pair_ground_truths
    ADD CONSTRAINT pair_ground_truths_pair_id_fkey FOREIGN KEY (pair_id) REFERENCES public.pairs(id) ON DELETE CASCADE;


--
-- Name: pairs pairs_reference_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pairs
    ADD CONSTRAINT pairs_reference_id_fkey FOREIGN KEY (reference_id) REFERENCES public.images(id);


--
-- Name: pairs pairs_target_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pairs
    ADD CONSTRAINT pairs_target_id_fkey FOREIGN KEY (target_id) REFERENCES public.images(id);


--
-- Name: rating_assignments rating_assignments_rater_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rating_assignments
    ADD CONSTRAINT rating_assignments_rater_id_fkey FOREIGN KEY (rater_id) REFERENCES public.people(id);


--
-- Name: rating_assignments rating_assignments_transaction_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rating_assignments
    ADD CONSTRAINT rating_assignments_transaction_id_fkey FOREIGN KEY (transaction_id) REFERENCES public.transactions(id) ON DELETE CASCADE;


--
-- Name: ratings ratings_assignment_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ratings
    ADD CONSTRAINT ratings_assignment_id_fkey FOREIGN KEY (assignment_id) REFERENCES public.rating_assignments(id) ON DELETE CASCADE;


--
-- Name: retrieval_sessions retrieval_sessions_person_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.retrieval_sessions
    ADD CONSTRAINT retrieval_sessions_person_id_fkey FOREIGN KEY (person_id) REFERENCES public.people(id);


--
-- Name: retrieval_sessions retrieval_sessions_target_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.retrieval_sessions
    ADD CONSTRAINT retrieval_sessions_target_id_fkey FOREIGN KEY (target_id) REFERENCES public.images(id);


--
-- Name: session_turns session_turns_reference_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.session_turns
    ADD CONSTRAINT session_turns_reference_id_fkey FOREIGN KEY (reference_id) REFERENCES public.images(id);


--
-- Name: session_turns session_turns_session_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.session_turns
    ADD CONSTRAINT session_turns_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.retrieval_sessions(id) ON DELETE CASCADE;


--
-- Name: team_assignments team_assignments_person_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_assignments
    ADD CONSTRAINT team_assignments_person_id_fkey FOREIGN KEY (person_id) REFERENCES public.people(id);


--
-- Name: team_packages team_packages_person_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_packages
    ADD CONSTRAINT team_packages_person_id_fkey FOREIGN KEY (person_id) REFERENCES public.people(id);


--
-- Name: transaction_images transaction_images_image_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transaction_images
    ADD CONSTRAINT transaction_images_image_id_fkey FOREIGN KEY (image_id) REFERENCES public.images(id);


--
-- Name: transaction_images transaction_images_transaction_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transaction_images
    ADD CONSTRAINT transaction_images_transaction_id_fkey FOREIGN KEY (transaction_id) REFERENCES public.transactions(id) ON DELETE CASCADE;


--
-- Name: transaction_layouts transaction_layouts_transaction_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transaction_layouts
    ADD CONSTRAINT transaction_layouts_transaction_id_fkey FOREIGN KEY (transaction_id) REFERENCES public.transactions(id) ON DELETE CASCADE;


--
-- Name: transaction_turns transaction_turns_transaction_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transaction_turns
    ADD CONSTRAINT transaction_turns_transaction_id_fkey FOREIGN KEY (transaction_id) REFERENCES public.transactions(id) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--

