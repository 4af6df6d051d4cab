"""The knowledge base in Milvus (Lite by default): BM25 full-text and optional dense vectors.

Milvus Lite admits one process per data directory. We take our own lock first and record
who holds it, so a second process gets "stop process 1234 (energy-advisor chat)" instead
of a stack trace. The same class works against a Milvus server URI (no lock needed there).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import sys
import threading
from pathlib import Path
from typing import Any

from pymilvus import AnnSearchRequest, DataType, Function, FunctionType, MilvusClient, WeightedRanker

from knowledge.analysis import search_text
from knowledge.documents import Chunk

logger = logging.getLogger(__name__)


class _UnimplementedRpcFilter(logging.Filter):
    """pymilvus asks for `AllocTimestamp` while waiting for a new index; Milvus Lite's embedded gRPC
    server does not implement it and logs a traceback at ERROR, although creation succeeds. Drop
    exactly that record; every other server error still shows."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "Method not implemented" not in record.getMessage()


logging.getLogger("grpc._server").addFilter(_UnimplementedRpcFilter())

COLLECTION = "energy_kb"
# Hybrid fusion: Milvus' WeightedRanker over normalized BM25 and cosine scores. RRF (k = 60) used
# ranks only, so a passage the dense search put far ahead (cosine 0.72 against 0.57 for
# "Why is electricity more expensive in the evening?") lost to one both put mid-list; weighted
# scores found the right first document for 68 of 82 development questions against RRF's 66
# (0.3/0.7: 67, 0.5/0.5: 66), and 37 of 51 labelled ones against 33.
SPARSE_WEIGHT = 0.4
DENSE_WEIGHT = 0.6
TEXT_LIMIT = 8000  # characters kept of a chunk (chunks are ~300 words)
QUERY_LIMIT = 2000  # characters of a query used for search
OUTPUT_FIELDS = ["text", "source", "title", "section", "applies_to"]


class KnowledgeBaseLockedError(RuntimeError):
    """Another process owns the Milvus Lite data directory."""


class KnowledgeStore:
    def __init__(self, uri: str, *, dense_dimensions: int | None, embedding_model: str | None) -> None:
        self.uri = uri
        self.dense_dimensions = dense_dimensions
        self.embedding_model = embedding_model
        self._lock_file = None
        self._guard = threading.Lock()  # the client is shared by the bot's worker threads
        self._local = not uri.startswith(("http://", "https://", "tcp://", "grpc://"))
        if self._local:
            Path(uri).parent.mkdir(parents=True, exist_ok=True)
            self._lock_file = _take_owner_lock(Path(uri))
        try:
            self._client = MilvusClient(uri)
        except Exception as exc:
            self.close()
            if "lock" in repr(exc).lower() or "Open local milvus failed" in str(exc):
                raise KnowledgeBaseLockedError(_locked_message(Path(uri))) from None
            raise
        self._ensure_collection()

    # --- lifecycle ------------------------------------------------------------------------

    def close(self) -> None:
        client = getattr(self, "_client", None)
        if client is not None:
            with contextlib.suppress(Exception):
                client.close()
            self._client = None
            if self._local:
                _release_local_server(self.uri)
        if self._lock_file is not None:
            with contextlib.suppress(OSError):
                self._lock_file.truncate(0)
                fcntl.flock(self._lock_file, fcntl.LOCK_UN)
                self._lock_file.close()
            self._lock_file = None

    def __enter__(self) -> KnowledgeStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def hybrid(self) -> bool:
        return self.dense_dimensions is not None

    # --- writes ---------------------------------------------------------------------------

    def existing(self) -> dict[str, str]:
        """Chunk id -> source file, for every stored chunk."""
        with self._guard:
            rows = self._client.query(
                COLLECTION, filter='id != ""', output_fields=["id", "source"], limit=16384
            )
        return {row["id"]: row["source"] for row in rows}

    def insert(self, chunks: list[Chunk], vectors: list[list[float]] | None) -> None:
        if not chunks:
            return
        rows = []
        for index, chunk in enumerate(chunks):
            row: dict[str, Any] = {
                "id": chunk.id,
                "text": chunk.text[:TEXT_LIMIT],
                "terms": search_text(chunk.text[:TEXT_LIMIT]) or "-",
                "source": chunk.source,
                "title": chunk.title[:256],
                "section": chunk.section[:256],
                "applies_to": chunk.applies_to[:64],
                "hash": chunk.hash,
            }
            if self.hybrid:
                if vectors is None:
                    raise ValueError("this collection has a dense field: vectors are required")
                row["dense"] = vectors[index]
            rows.append(row)
        with self._guard:
            self._client.upsert(COLLECTION, rows)

    def delete(self, ids: list[str]) -> None:
        if ids:
            with self._guard:
                self._client.delete(COLLECTION, ids=ids)

    def flush(self) -> None:
        """Seal newly written rows into a segment. Milvus Lite keeps unflushed rows in a memtable
        and rebuilds the sparse index for them on every search (~80 ms vs ~8 ms per query for
        1 000 chunks, measured by bench.retrieval), so ingestion flushes after changing anything."""
        with self._guard:
            self._client.flush(COLLECTION)

    # --- search ---------------------------------------------------------------------------

    def search_bm25(self, query: str, k: int) -> list[tuple[dict[str, Any], float]]:
        """(row, BM25 score) best first; Milvus reports BM25 as a negative distance."""
        with self._guard:
            hits = self._client.search(
                COLLECTION,
                data=[search_text(query[:QUERY_LIMIT]) or "-"],
                anns_field="sparse",
                limit=k,
                output_fields=OUTPUT_FIELDS,
                search_params={"metric_type": "BM25"},
            )[0]
        return [(hit["entity"], abs(float(hit["distance"]))) for hit in hits]

    def search_dense(self, vector: list[float], k: int) -> list[tuple[dict[str, Any], float]]:
        """(row, cosine) best first: the dense half alone (bench.retrieval compares the three ways)."""
        with self._guard:
            hits = self._client.search(
                COLLECTION,
                data=[vector],
                anns_field="dense",
                limit=k,
                output_fields=OUTPUT_FIELDS,
                search_params={"metric_type": "COSINE"},
            )[0]
        return [(hit["entity"], float(hit["distance"])) for hit in hits]

    def search_hybrid(self, query: str, vector: list[float], k: int) -> list[tuple[dict[str, Any], float]]:
        """(row, fused score 0..1) best first: BM25 and dense COSINE scores, normalized and weighted."""
        requests = [
            AnnSearchRequest(
                data=[search_text(query[:QUERY_LIMIT]) or "-"],
                anns_field="sparse",
                param={"metric_type": "BM25"},
                limit=k * 3,
            ),
            AnnSearchRequest(data=[vector], anns_field="dense", param={"metric_type": "COSINE"}, limit=k * 3),
        ]
        with self._guard:
            hits = self._client.hybrid_search(
                COLLECTION,
                requests,
                ranker=WeightedRanker(SPARSE_WEIGHT, DENSE_WEIGHT),
                limit=k,
                output_fields=OUTPUT_FIELDS,
            )[0]
        return [(hit["entity"], float(hit["distance"])) for hit in hits]

    # --- schema ---------------------------------------------------------------------------

    def _ensure_collection(self) -> None:
        wanted = {
            "embedding_model": self.embedding_model,
            "dense_dimensions": self.dense_dimensions,
            "version": 3,  # 2: chunks carry the document's jurisdiction; 3: BM25 over analyzed terms
        }
        meta_path = _meta_path(self.uri) if self._local else None
        current = _read_json(meta_path) if meta_path else None
        with self._guard:
            exists = self._client.has_collection(COLLECTION)
            if exists and meta_path is not None and current != wanted:
                logger.info("Knowledge base schema changed (%s -> %s): rebuilding", current, wanted)
                self._client.drop_collection(COLLECTION)
                exists = False
            if not exists:
                self._client.create_collection(
                    COLLECTION, schema=self._schema(), index_params=self._indexes()
                )
            self._client.load_collection(COLLECTION)
        if meta_path is not None:
            meta_path.write_text(json.dumps(wanted), encoding="utf-8")

    def _schema(self):
        schema = self._client.create_schema(auto_id=False, description="Home Energy Advisor knowledge base")
        schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=64)
        schema.add_field("text", DataType.VARCHAR, max_length=TEXT_LIMIT * 4)
        # BM25 reads the chunk's search terms (knowledge/analysis.py: stop words out, Snowball
        # stems), not its raw text: Milvus Lite's analyzer has no English stop words or stemming
        schema.add_field("terms", DataType.VARCHAR, max_length=TEXT_LIMIT * 4, enable_analyzer=True)
        schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
        if self.hybrid:
            schema.add_field("dense", DataType.FLOAT_VECTOR, dim=self.dense_dimensions)
        for name in ("source", "title", "section"):
            schema.add_field(name, DataType.VARCHAR, max_length=1024)
        schema.add_field("applies_to", DataType.VARCHAR, max_length=256)
        schema.add_field("hash", DataType.VARCHAR, max_length=64)
        schema.add_function(
            Function(
                name="bm25",
                function_type=FunctionType.BM25,
                input_field_names=["terms"],
                output_field_names=["sparse"],
            )
        )
        return schema

    def _indexes(self):
        indexes = self._client.prepare_index_params()
        indexes.add_index(field_name="sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25")
        if self.hybrid:
            indexes.add_index(field_name="dense", index_type="AUTOINDEX", metric_type="COSINE")
        return indexes


def _release_local_server(uri: str) -> None:
    """Milvus Lite serves each data path from a background gRPC server that `close()` leaves
    running until the process exits; stop ours now so its port and threads go with us."""
    try:
        from milvus_lite.server_manager import server_manager_instance
    except ImportError:  # a Milvus server URI, or an older milvus-lite
        return
    with contextlib.suppress(Exception):
        server_manager_instance.release_server(uri)


# --- owner lock ----------------------------------------------------------------------------


def _owner_path(data: Path) -> Path:
    return data.with_name(data.name + ".owner")


def _meta_path(uri: str) -> Path:
    return Path(uri).with_name(Path(uri).name + ".meta.json")


def _read_json(path: Path | None) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8")) if path else None
    except (OSError, ValueError):
        return None


def _take_owner_lock(data: Path):
    handle = open(_owner_path(data), "a+", encoding="utf-8")  # noqa: SIM115 - held open for the process's life
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise KnowledgeBaseLockedError(_locked_message(data)) from None
    handle.seek(0)
    handle.truncate()
    handle.write(
        json.dumps(
            {"pid": os.getpid(), "command": " ".join(Path(sys.argv[0]).name.split() + sys.argv[1:])[:200]}
        )
    )
    handle.flush()
    return handle


def _locked_message(data: Path) -> str:
    owner = _read_json(_owner_path(data)) or {}
    who = (
        f"process {owner['pid']} ({owner.get('command') or 'unknown command'})"
        if owner.get("pid")
        else "another process"
    )
    return (
        f"The knowledge base at {data} is in use by {who}. Milvus Lite allows one process per data "
        f"directory: stop that process (e.g. `kill {owner.get('pid', '<pid>')}`), or give this one its own "
        "DATA_DIR or ENERGY_ADVISOR_MILVUS_URI."
    )
