// Generated from docs/openapi.json by packages/client/scripts/generate-types.ts. Do not edit.
/** Every operation of the Presso API by operationId: path, method, parameters, body and responses by status. */
export interface Operations {
  uploadFile: {
    path: "/1.0/upload";
    method: "POST";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: never;
    responses: {
      200: {
        id: string;
        /** Temporary download URL (2 hours) or the object URL in an external store. */
        url: string;
        input: {
          name: string;
          type: "image" | "video" | "audio" | "pdf" | "document" | "archive" | "bundle";
          format: string;
          mime: string;
          /** Bytes. */
          size: number;
          sha1: string;
        };
        output: {
          name: string;
          type: "image" | "video" | "audio" | "pdf" | "document" | "archive" | "bundle";
          format: string;
          mime: string;
          /** Bytes. */
          size: number;
          sha1: string;
        };
        /** With "metadata": true. */
        metadata?: {
          [key: string]: unknown;
        };
      };
      202: {
        id: string;
        status: "enqueued" | "processing";
        /** Extension: percent done of a processing video or audio job, from ffmpeg's progress. */
        progress?: number;
      };
      400: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      408: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      413: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      415: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  fetchFile: {
    path: "/1.0/fetch";
    method: "POST";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      contentType: "application/json";
      schema: {
        /** Absolute http(s) URL of the input file. */
        url: string;
        /** Headers added to the download request. Kept encrypted while the job runs and deleted when it ends. */
        headers?: {
          [key: string]: string;
        };
        /** Parameters for image files. */
        image?: {
          /** `medium` keeps more detail, `ultra` makes the smallest files, `lossless` never loses pixel data. */
          compression?: "medium" | "high" | "ultra" | "lossless";
          /** Output format; default is the input format. `auto` keeps the smallest of WebP, AVIF and the input format. `jxl` is JPEG XL (lossless JPEG recompression for JPEG input at `lossless`), `ico` an icon with the standard sizes up to 256, `svg` only from SVG input. */
          format?: "jpeg" | "png" | "webp" | "avif" | "gif" | "tiff" | "jxl" | "ico" | "svg" | "auto";
          resize?: {
            /** Target width in pixels. */
            width?: number;
            /** Target height in pixels. */
            height?: number;
            /** `auto` keeps the aspect ratio and fits inside the box; `fit` covers the box and crops around `gravity`; `exact` stretches to the box; `pad` fits inside and fills the rest with `background`. */
            mode?: "auto" | "fit" | "exact" | "pad";
            /** Which part of the image `fit` keeps; `attention` and `entropy` pick it from content. */
            gravity?: "center" | "north" | "northeast" | "east" | "southeast" | "south" | "southwest" | "west" | "northwest" | "attention" | "entropy";
            /** Fill colour of `pad` as CSS hex (`#ffffff`, `#00000000`); default transparent when the output format has alpha, else white. */
            background?: string;
            /** `false` never enlarges the image. */
            upscale?: boolean;
          };
          /** Region to keep, applied after orientation and before rotate, flip and resize. */
          crop?: {
            /** Left edge in pixels of the oriented image. */
            x: number;
            /** Top edge in pixels of the oriented image. */
            y: number;
            /** Width of the region. */
            width: number;
            /** Height of the region. */
            height: number;
          };
          /** Clockwise rotation in degrees, after the crop. */
          rotate?: 90 | 180 | 270;
          /** Mirror top to bottom. */
          flip?: boolean;
          /** Mirror left to right. */
          flop?: boolean;
          /** `strip` removes EXIF/XMP/IPTC and converts colour to sRGB; `keep` keeps them and the ICC profile; `copyright` keeps only copyright and creator. Orientation is always applied to the pixels. */
          metadata?: "strip" | "keep" | "copyright";
          /** Page of a multi-page TIFF or entry of an ICO to use (0-based); default first page / largest icon. */
          page?: number;
        };
        /** Parameters for video files (extension of this server). */
        video?: {
          /** Perceptual target of the encode: `medium` keeps more detail, `ultra` makes the smallest files; the quantiser is searched per video. `lossless` never re-encodes: a remux with `+faststart` that drops subtitle, data and attachment streams. */
          compression?: "medium" | "high" | "ultra" | "lossless";
          /** Output container; default: the input container when it is mp4, mov, webm or mkv, else mp4. `gif` is an animated GIF without audio. */
          format?: "mp4" | "webm" | "mov" | "mkv" | "gif";
          /** Video codec; default h264 (High, yuv420p) in mp4, mov and mkv, av1 in webm. Pairs: mp4 h264/h265/av1, mov h264/h265, webm vp9/av1, mkv any; not with gif. */
          codec?: "h264" | "h265" | "vp9" | "av1";
          resize?: {
            /** Target width in pixels (made even). */
            width?: number;
            /** Target height in pixels (made even). */
            height?: number;
            /** `auto` keeps the aspect ratio and fits inside the box; `fit` covers the box and crops the centre. */
            mode?: "auto" | "fit";
            /** `false` never enlarges the video. */
            upscale?: boolean;
          };
          /** Output frame rate (constant); default: kept. */
          fps?: number;
          /** `keep` the first audio track (copied when the container allows, else AAC 128k / Opus 96k), `remove` it, or re-encode it at this many kbit/s. */
          audio?: "keep" | "remove" | number;
          /** Keep only part of the file. */
          trim?: {
            /** Seconds to skip from the start (default 0). */
            start?: number;
            /** Seconds to keep from `start` (default: to the end). */
            duration?: number;
          };
          /** Clockwise rotation in degrees, on top of the rotation the file asks players to apply. */
          rotate?: 90 | 180 | 270;
        };
        /** Parameters for audio files (extension of this server). */
        audio?: {
          /** Bitrate per channel chosen by level and codec (`medium` the highest, `ultra` the lowest); `lossless` writes FLAC (or WAV when asked), or remuxes a lossy input without re-encoding it. */
          compression?: "medium" | "high" | "ultra" | "lossless";
          /** Output format; default: the input format (WAV and AIFF become FLAC). `aac` is raw ADTS, `m4a` AAC in MP4, `ogg` Vorbis, `opus` Opus in Ogg. */
          format?: "mp3" | "aac" | "m4a" | "opus" | "ogg" | "flac" | "wav";
          /** Total bitrate in kbit/s (lossy formats). */
          bitrate?: number;
          /** Mix down to mono or stereo. */
          channels?: 1 | 2;
          /** Resample to this rate in Hz; opus takes 8, 12, 16, 24 or 48 kHz. */
          sampleRate?: 8000 | 11025 | 12000 | 16000 | 22050 | 24000 | 32000 | 44100 | 48000;
          /** Keep only part of the file. */
          trim?: {
            /** Seconds to skip from the start (default 0). */
            start?: number;
            /** Seconds to keep from `start` (default: to the end). */
            duration?: number;
          };
          /** `keep` tags and cover art (cover art in mp3, m4a and flac), `strip` removes both. */
          metadata?: "keep" | "strip";
        };
        pdf?: {
          /** Lossy levels recompress and downsample images to a perceptual target on the rendered pages (`medium` keeps most detail, `ultra` makes the smallest files); `lossless` changes no pixel (structure optimisation only). Text always stays text. */
          compression?: "medium" | "high" | "ultra" | "lossless";
          /** Linearise the output for fast web view. */
          linearize?: boolean;
          /** Convert every page to shades of grey. */
          grayscale?: boolean;
          /** Password of an encrypted input; the output is written without encryption. */
          password?: string;
          /** `pdfa` writes PDF/A-2b (archival: fonts embedded, an sRGB output intent). */
          format?: "pdf" | "pdfa";
        };
        document?: {
          /** Level the embedded pictures are recompressed at by the image processor (each keeps its format unless `images.format` says otherwise); the container is re-packed with a stronger deflate. `lossless` changes no pixel. Below `lossless` the thumbnail (a preview file managers show, not content) is dropped. */
          compression?: "medium" | "high" | "ultra" | "lossless";
          images?: {
            /** Convert the embedded JPEG and PNG pictures to `jpeg` or `png` (renaming each part and updating every reference to it); a converted picture is kept only when smaller. A picture with transparency is never made JPEG, and at `lossless` nothing is made JPEG. `keep` recompresses each picture in its own format. */
            format?: "keep" | "jpeg" | "png";
          };
          /** Convert with LibreOffice: `pdf` from any office format; `docx` from text documents (DOC, RTF, ODT), `xlsx` from spreadsheets (XLS, ODS), `pptx` from presentations (PPT, ODP). */
          format?: "pdf" | "docx" | "xlsx" | "pptx";
        };
        archive?: {
          /** How hard the archive is re-packed: every level keeps every member byte for byte (medium: gzip -9, xz -9, zstd -19, 7-Zip deflate; high: zopfli deflate up to 32 MiB, xz -9e, zstd --ultra -22; ultra: more zopfli iterations). With `deep`, also the level each member is processed at. */
          compression?: "medium" | "high" | "ultra" | "lossless";
          /** Convert to another archive format. A single-stream format (gz, bz2, xz, zst) can only hold one file: it is accepted for single-stream inputs only. */
          format?: "zip" | "7z" | "tar" | "tar.gz" | "tar.bz2" | "tar.xz" | "tar.zst" | "gz" | "bz2" | "xz" | "zst";
          /** Pass each member through the processor of its own kind (images, PDFs, office documents, audio, video) at `compression`, keeping names, folders, times and permissions; members no processor improves stay byte-identical. Archives inside are opened up to the server’s nesting limit. */
          deep?: boolean;
          /** Opens encrypted ZIP or 7z members; a ZIP or 7z output is encrypted again with it (AES-256; a 7z also hides its names). One line: no line break or NUL. A wrong password is a 422 on this field. */
          password?: string;
        };
        bundle?: {
          /** Level the images are optimised at by the image processor; HTML, CSS, JavaScript, SVG and JSON are minified at every level (`lossless` keeps every image pixel). */
          compression?: "medium" | "high" | "ultra" | "lossless";
          images?: {
            /** Convert PNG and JPEG images to WebP or AVIF and rewrite every reference to them (HTML src, srcset, href, poster, style and CSS url()); `keep` optimises each image in its own format. */
            format?: "keep" | "webp" | "avif";
            /** With `format`: keep the original images and wrap each <img> in a <picture> whose <source> is the converted one, so browsers without WebP or AVIF still load the original. */
            picture?: boolean;
          };
        };
        /** Add a metadata object (dimensions, EXIF, ...) to the result. */
        metadata?: boolean;
        /** Answer 202 at once and run the job in the background. */
        async?: boolean;
        webhook?: {
          /** URL notified when the job finishes. */
          url: string;
        };
        /** Write the output to your own bucket through a stored connector. */
        store?: {
          /** Connector id (POST /1.0/connectors). */
          id: string;
          /** Target bucket (the container for Azure). */
          bucket?: string;
          /** Azure: the container (the same as bucket; if both are given they must agree). */
          container?: string;
          /** Region of the bucket: required for S3, B2 and Spaces, refused for GCS, R2 and Azure. */
          region?: string;
          /** Object path without a leading slash. Ending in `/` (or omitted): a folder the output name is appended to. */
          path?: string;
          /** Object ACL (S3, R2, B2, Spaces: default public-read; GCS: publicRead; not Azure). */
          acl?: string;
          /** S3 storage class: standard (default), reduced-redundancy, standard-ia, onezone-ia, intelligent-tiering, glacier, deep-archive. */
          class?: string;
          /** Custom object metadata. */
          metadata?: {
            [key: string]: string;
          };
          /** HTTP headers stored with the object; allowed names depend on the store kind. */
          headers?: {
            [key: string]: string;
          };
          /** Object tags (S3 only). */
          tags?: {
            [key: string]: string;
          };
        };
      };
    };
    responses: {
      200: {
        id: string;
        /** Temporary download URL (2 hours) or the object URL in an external store. */
        url: string;
        input: {
          name: string;
          type: "image" | "video" | "audio" | "pdf" | "document" | "archive" | "bundle";
          format: string;
          mime: string;
          /** Bytes. */
          size: number;
          sha1: string;
        };
        output: {
          name: string;
          type: "image" | "video" | "audio" | "pdf" | "document" | "archive" | "bundle";
          format: string;
          mime: string;
          /** Bytes. */
          size: number;
          sha1: string;
        };
        /** With "metadata": true. */
        metadata?: {
          [key: string]: unknown;
        };
      };
      202: {
        id: string;
        status: "enqueued" | "processing";
        /** Extension: percent done of a processing video or audio job, from ffmpeg's progress. */
        progress?: number;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      408: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      413: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      415: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      502: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  listJobs: {
    path: "/1.0/jobs";
    method: "GET";
    pathParams: Record<string, never>;
    query: {
      status?: "enqueued" | "processing" | "completed" | "failed";
      kind?: string;
      since?: string;
      until?: string;
      minSize?: string;
      maxSize?: string;
      q?: string;
      cursor?: string;
      limit?: string;
    };
    body: never;
    responses: {
      200: {
        jobs: Array<{
          id: string;
          status: "enqueued" | "processing" | "completed" | "failed";
          /** The input’s detected kind, once known. */
          kind?: string;
          source: "upload" | "fetch";
          createdAt: string;
          startedAt?: string;
          finishedAt?: string;
          progress?: number;
          input?: {
            name: string;
            size: number;
            type?: string;
          };
          output?: {
            name: string;
            size: number;
            format: string;
          };
          /** Why a failed job failed. */
          message?: string;
        }>;
        /** Pass as `cursor` for the next page; absent on the last page. */
        nextCursor?: string;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  getJob: {
    path: "/1.0/jobs/{id}";
    method: "GET";
    pathParams: {
      id: string;
    };
    query: {
      detail?: "true" | "false";
    };
    body: never;
    responses: {
      200: {
        id: string;
        status: "enqueued" | "processing" | "completed" | "failed";
        success?: false;
        message?: string;
        /** Temporary download URL (2 hours) or the object URL in an external store. */
        url?: string;
        input?: {
          name: string;
          type: "image" | "video" | "audio" | "pdf" | "document" | "archive" | "bundle";
          format: string;
          mime: string;
          /** Bytes. */
          size: number;
          sha1: string;
        };
        output?: {
          name: string;
          type: "image" | "video" | "audio" | "pdf" | "document" | "archive" | "bundle";
          format: string;
          mime: string;
          /** Bytes. */
          size: number;
          sha1: string;
        };
        /** With "metadata": true. */
        metadata?: {
          [key: string]: unknown;
        };
        /** Extension: percent done of a processing video or audio job, from ffmpeg's progress. */
        progress?: number;
        queuedAt?: string;
        startedAt?: string;
        finishedAt?: string;
        /** The last run's steps, in order; recorded when the job ends. */
        steps?: Array<{
          name: string;
          startedAt: string;
          finishedAt: string;
          outcome: "completed" | "failed";
        }>;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      404: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  streamJobEvents: {
    path: "/1.0/jobs/{id}/events";
    method: "GET";
    pathParams: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    responses: {
      200: Blob;
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      404: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  listKeys: {
    path: "/1.0/keys";
    method: "GET";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: never;
    responses: {
      200: {
        keys: Array<{
          id: string;
          name: string;
          /** The first characters of the key, to recognise it; never enough to use it. */
          prefix: string;
          /** `jobs`: upload, fetch, jobs, account, webhooks. `connectors`: create, test and delete connectors. */
          scopes: Array<"jobs" | "connectors">;
          createdAt: string;
          /** When the key last authenticated a request, to the minute; null if never. */
          lastUsedAt: string | null;
          revokedAt: string | null;
        }>;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  createKey: {
    path: "/1.0/keys";
    method: "POST";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      contentType: "application/json";
      schema: {
        name: string;
        /** Default: ["jobs"]. */
        scopes?: Array<"jobs" | "connectors">;
      };
    };
    responses: {
      201: {
        id: string;
        name: string;
        /** The first characters of the key, to recognise it; never enough to use it. */
        prefix: string;
        /** `jobs`: upload, fetch, jobs, account, webhooks. `connectors`: create, test and delete connectors. */
        scopes: Array<"jobs" | "connectors">;
        createdAt: string;
        /** When the key last authenticated a request, to the minute; null if never. */
        lastUsedAt: string | null;
        revokedAt: string | null;
        /** The secret: shown this once, stored only as a hash. */
        key: string;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  revokeKey: {
    path: "/1.0/keys/{id}";
    method: "DELETE";
    pathParams: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    responses: {
      204: void;
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      404: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  getAccount: {
    path: "/1.0/account";
    method: "GET";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: never;
    responses: {
      200: {
        id: string;
        name: string;
        createdAt: string;
        rateLimit: {
          limit: number;
          remaining: number;
          /** Seconds until the window frees capacity. */
          reset: number;
          windowSeconds: number;
        };
        usage: {
          requests: number;
          jobs: number;
          bytesIn: number;
          bytesOut: number;
        };
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  getUsage: {
    path: "/1.0/usage";
    method: "GET";
    pathParams: Record<string, never>;
    query: {
      days?: string;
    };
    body: never;
    responses: {
      200: {
        days: Array<{
          /** The UTC day. */
          date: string;
          /** A kind of file (`image`, `video`, …; `unknown` for jobs that failed before detection), or `http`. */
          kind: string;
          /** Authenticated requests answered (kind `http` only). */
          requests: number;
          /** Jobs that finished that day. */
          jobs: number;
          /** Of those, the failed ones. */
          failures: number;
          bytesIn: number;
          bytesOut: number;
        }>;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  listWebhookDeliveries: {
    path: "/1.0/webhooks";
    method: "GET";
    pathParams: Record<string, never>;
    query: {
      job?: string;
      cursor?: string;
      limit?: string;
    };
    body: never;
    responses: {
      200: {
        deliveries: Array<{
          id: string;
          jobId: string;
          url: string;
          state: "pending" | "sending" | "succeeded" | "failed";
          nextAttemptAt?: string;
          createdAt: string;
          attempts: Array<{
            attempt: number;
            at: string;
            statusCode?: number;
            error?: string;
            durationMs: number;
          }>;
        }>;
        /** Pass as `cursor` for the next page; absent on the last page. */
        nextCursor?: string;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      404: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  replayWebhookDelivery: {
    path: "/1.0/webhooks/{id}/replay";
    method: "POST";
    pathParams: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    responses: {
      202: {
        id: string;
        state: "pending";
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      404: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  createConnector: {
    path: "/1.0/connectors";
    method: "POST";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      contentType: "application/json";
      schema: {
        kind: "s3" | "gcs" | "r2" | "b2" | "spaces" | "azure";
        name?: string;
        /** s3: accessKeyId, secretAccessKey[, endpoint]; r2: accountId, accessKeyId, secretAccessKey; b2: keyId, applicationKey; spaces: key, secret; gcs: serviceAccount (the key file JSON); azure: accountName + accountKey, or connectionString, or accountName + sasToken. Encrypted at rest, never returned. */
        credentials: {
          [key: string]: unknown;
        };
        /** Bucket (Azure: container) the probe object is written to and deleted from. */
        bucket: string;
        /** Region of the bucket (S3, B2, Spaces). */
        region?: string;
      };
    };
    responses: {
      201: {
        /** Use as `store.id` in upload and fetch requests. */
        id: string;
        kind: "s3" | "gcs" | "r2" | "b2" | "spaces" | "azure";
        name: string;
        /** A masked hint of the credentials (they are never returned). */
        hint: string;
        createdAt: string;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  listConnectors: {
    path: "/1.0/connectors";
    method: "GET";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: never;
    responses: {
      200: {
        connectors: Array<{
          /** Use as `store.id` in upload and fetch requests. */
          id: string;
          kind: "s3" | "gcs" | "r2" | "b2" | "spaces" | "azure";
          name: string;
          /** A masked hint of the credentials (they are never returned). */
          hint: string;
          createdAt: string;
        }>;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  deleteConnector: {
    path: "/1.0/connectors/{id}";
    method: "DELETE";
    pathParams: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    responses: {
      204: void;
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      404: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  testConnector: {
    path: "/1.0/connectors/{id}/test";
    method: "POST";
    pathParams: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      contentType: "application/json";
      schema: {
        /** Bucket (Azure: container) the probe object is written to and deleted from. */
        bucket: string;
        /** Region of the bucket (S3, B2, Spaces). */
        region?: string;
      };
    };
    responses: {
      200: {
        ok: true;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      404: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  reportCspViolation: {
    path: "/1.0/csp-reports";
    method: "POST";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: never;
    responses: {
      204: void;
      400: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      413: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      415: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  signIn: {
    path: "/1.0/session";
    method: "POST";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      contentType: "application/json";
      schema: {
        email: string;
        password: string;
      };
    };
    responses: {
      200: {
        user: {
          id: string;
          email: string;
          role: "owner" | "member" | "operator";
        };
        account: {
          id: string;
          name: string;
        };
        /** Send as the X-CSRF-Token header with every state-changing request of this session. */
        csrfToken: string;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  getSession: {
    path: "/1.0/session";
    method: "GET";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: never;
    responses: {
      200: {
        user: {
          id: string;
          email: string;
          role: "owner" | "member" | "operator";
        };
        account: {
          id: string;
          name: string;
        };
        /** Send as the X-CSRF-Token header with every state-changing request of this session. */
        csrfToken: string;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  signOut: {
    path: "/1.0/session";
    method: "DELETE";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: never;
    responses: {
      204: void;
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  signOutEverywhere: {
    path: "/1.0/sessions";
    method: "DELETE";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: never;
    responses: {
      204: void;
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      404: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  listUsers: {
    path: "/1.0/users";
    method: "GET";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: never;
    responses: {
      200: {
        users: Array<{
          id: string;
          email: string;
          role: "owner" | "member" | "operator";
          createdAt: string;
          lastSignInAt: string | null;
        }>;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  updateUser: {
    path: "/1.0/users/{id}";
    method: "PATCH";
    pathParams: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      contentType: "application/json";
      schema: {
        role: "owner" | "member" | "operator";
      };
    };
    responses: {
      200: {
        id: string;
        email: string;
        role: "owner" | "member" | "operator";
        createdAt: string;
        lastSignInAt: string | null;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      404: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      409: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  deleteUser: {
    path: "/1.0/users/{id}";
    method: "DELETE";
    pathParams: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    responses: {
      204: void;
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      404: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      409: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  createInvite: {
    path: "/1.0/invites";
    method: "POST";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      contentType: "application/json";
      schema: {
        email: string;
        role: "owner" | "member" | "operator";
        accountId?: string;
      };
    };
    responses: {
      201: {
        /** Shown once; only its hash is stored. */
        token: string;
        /** The link to send to the invited person. */
        url: string;
        expiresAt: string;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      404: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      409: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  getInvite: {
    path: "/1.0/invites/{token}";
    method: "GET";
    pathParams: {
      token: string;
    };
    query: Record<string, never>;
    body: never;
    responses: {
      200: {
        email: string;
        accountName: string;
        role: "owner" | "member" | "operator";
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      404: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  acceptInvite: {
    path: "/1.0/invites/{token}/accept";
    method: "POST";
    pathParams: {
      token: string;
    };
    query: Record<string, never>;
    body: {
      contentType: "application/json";
      schema: {
        password: string;
      };
    };
    responses: {
      200: {
        user: {
          id: string;
          email: string;
          role: "owner" | "member" | "operator";
        };
        account: {
          id: string;
          name: string;
        };
        /** Send as the X-CSRF-Token header with every state-changing request of this session. */
        csrfToken: string;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      404: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      409: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  getWebhookSecret: {
    path: "/1.0/webhook-secret";
    method: "GET";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: never;
    responses: {
      200: {
        /** The prefix and last four characters. */
        hint: string;
        /** When the secret was made. */
        rotatedAt: string;
        /** The previous secret signs too until then. */
        previousValidUntil?: string;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  rotateWebhookSecret: {
    path: "/1.0/webhook-secret/rotate";
    method: "POST";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: never;
    responses: {
      200: {
        /** Shown this once. */
        secret: string;
        previousValidUntil: string;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  operatorListAccounts: {
    path: "/1.0/operator/accounts";
    method: "GET";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: never;
    responses: {
      200: {
        accounts: Array<{
          id: string;
          name: string;
          createdAt: string;
          /** Requests per rate-limit window. */
          rateLimit: number;
          disabled: boolean;
          usage: {
            requests: number;
            jobs: number;
            bytesIn: number;
            bytesOut: number;
          };
        }>;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  operatorCreateAccount: {
    path: "/1.0/operator/accounts";
    method: "POST";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      contentType: "application/json";
      schema: {
        name: string;
        rateLimit?: number;
        ownerEmail?: string;
      };
    };
    responses: {
      201: {
        account: {
          id: string;
          name: string;
          createdAt: string;
          /** Requests per rate-limit window. */
          rateLimit: number;
          disabled: boolean;
          usage: {
            requests: number;
            jobs: number;
            bytesIn: number;
            bytesOut: number;
          };
        };
        key: {
          id: string;
          /** Shown this once. */
          key: string;
        };
        invite?: {
          url: string;
          expiresAt: string;
        };
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      409: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  operatorUpdateAccount: {
    path: "/1.0/operator/accounts/{id}";
    method: "PATCH";
    pathParams: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      contentType: "application/json";
      schema: {
        rateLimit?: number;
        disabled?: boolean;
      };
    };
    responses: {
      200: {
        id: string;
        name: string;
        createdAt: string;
        /** Requests per rate-limit window. */
        rateLimit: number;
        disabled: boolean;
        usage: {
          requests: number;
          jobs: number;
          bytesIn: number;
          bytesOut: number;
        };
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      404: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      422: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  operatorOverview: {
    path: "/1.0/operator/overview";
    method: "GET";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: never;
    responses: {
      200: {
        queue: {
          lanes: Array<{
            lane: string;
            waiting: number;
            running: number;
            oldestWaitingSeconds: number;
          }>;
        };
        workers: Array<{
          lane: string;
          workers: number;
        }>;
        /** Every process's running jobs (at most 200), grouped by worker. */
        running: Array<{
          /** host:pid:slot of the process and worker slot running the jobs. */
          worker: string;
          jobs: Array<{
            id: string;
            accountId: string;
            kind?: string;
            name?: string;
            startedAt?: string;
            progress?: number;
          }>;
        }>;
        disk: {
          free: number;
          total: number;
          low: boolean;
        };
        jobs: Array<{
          kind: string;
          status: string;
          count: number;
        }>;
        webhooks: Array<{
          outcome: string;
          count: number;
        }>;
      };
      401: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      507: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  getReadiness: {
    path: "/healthz";
    method: "GET";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: never;
    responses: {
      200: {
        status: "ok" | "degraded" | "shutting-down";
        reason?: "low-disk" | "queue-unreachable";
        queued?: number;
        disk?: {
          freeBytes: number;
          minFreeBytes: number;
        };
        /** How external tools are isolated: bwrap (bubblewrap sandbox) or off (PRESSO_SANDBOX=off) */
        sandbox: "bwrap" | "off";
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      503: {
        status: "ok" | "degraded" | "shutting-down";
        reason?: "low-disk" | "queue-unreachable";
        queued?: number;
        disk?: {
          freeBytes: number;
          minFreeBytes: number;
        };
        /** How external tools are isolated: bwrap (bubblewrap sandbox) or off (PRESSO_SANDBOX=off) */
        sandbox: "bwrap" | "off";
      };
    };
  };
  getLiveness: {
    path: "/livez";
    method: "GET";
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: never;
    responses: {
      200: {
        status: "ok";
      };
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
  downloadOutput: {
    path: "/{expiry}/{jobId}/{name}";
    method: "GET";
    pathParams: {
      expiry: string;
      jobId: string;
      name: string;
    };
    query: Record<string, never>;
    body: never;
    responses: {
      200: Blob;
      206: Blob;
      304: void;
      403: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      404: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      410: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      416: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      429: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
      500: {
        success: false;
        status: number;
        /** Request id; quote it to support. */
        id: string;
        message: string;
        errors?: Array<{
          field: string;
          message: string;
        }>;
      };
    };
  };
}
